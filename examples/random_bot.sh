#!/usr/bin/env bash
# A complete bot-arena bot in bash (protocol 1, docs/protocol.md): it plays a
# random legal move in any game. Logs go to stderr; stdout carries only replies.
set -u
RANDOM=1
while read -r command rest; do
  case "$command" in
    arena)                      # arena 1 GAME SEAT SEED [RULE=VALUE ...]
      read -r version game seat seed _ <<< "$rest"
      if [ "$version" != 1 ]; then
        echo "random_bot.sh: protocol $version not supported" >&2
        exit 1
      fi
      RANDOM=$((seed % 32768))
      echo "bash random bot playing $game as seat $seat" >&2
      echo "ready random_bot.sh"
      ;;
    turn)                       # turn MOVE_MS BANK_MS LAST LEGAL STATE...
      read -r move_ms bank_ms last legal state <<< "$rest"
      IFS=, read -r -a moves <<< "$legal"
      echo "${moves[RANDOM % ${#moves[@]}]}"
      ;;
    over)                       # over RESULT TERMINATION
      echo "game over: $rest" >&2
      ;;
    quit)
      exit 0
      ;;
  esac
done
