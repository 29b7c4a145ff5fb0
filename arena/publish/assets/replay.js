/* bot-arena static site: the replay viewer of a game of turns, a move at a time (viewer.js
 * is the frame: loading, the controls, the keys). #g=N&m=K shows game N after K moves. The
 * game comes from data/moves/CHUNK.js, where the publisher already replayed it through its
 * rules: each move carries the board to play next and each change of the small boards'
 * status, so this file knows no rules. */
(function () {
  "use strict";
  const A = window.Arena;
  const el = A.el;
  const ms = A.ms;
  const boardNode = document.getElementById("board");
  const moveBody = document.querySelector("#movelist tbody");
  let league = null;
  let game = null;       // the game shown
  let step = 0;          // moves played on the board shown
  let cellNodes = [];
  let boardNodes = [];

  const MARK = ["x", "o"];

  function botName(ref) { return A.botName(league, ref); }

  function botLink(ref) { return A.botLink(league, ref); }

  function label(termination) { return A.terminationLabel(league, termination); }

  function markSpan(seat) { return el("span", { className: "mark " + MARK[seat] }, MARK[seat].toUpperCase()); }

  function where(cell) {
    if (game.marks) return "move " + cell;
    if (game.cells === 81) {
      return "board " + Math.floor(cell / 9) + ", square " + (cell % 9) + " (cell " + cell + ")";
    }
    // numbered from 0 like the cells (and the moves bots send)
    return "cell " + cell + " (row " + Math.floor(cell / 3) + ", column " + (cell % 3) + ")";
  }

  function resultText() {
    if (game.faulted === 0 || game.faulted === 1) {
      return botName(game.bots[1 - game.faulted]) + " wins (" + botName(game.bots[game.faulted])
        + " faulted: " + label(game.termination) + ")";
    }
    if (game.winner === 0 || game.winner === 1) return botName(game.bots[game.winner]) + " wins";
    return "draw";
  }

  /* --- building the page for one game ---------------------------------------------------- */

  /* Three boards: nine 3x3 sub-boards (the nine-board games), a grid whose squares the moves
   * name (tic-tac-toe, or a plugin's placement game), or a grid drawn from the marks the
   * publisher sent for each ply (a plugin game whose moves do not name squares). A game
   * without a grid shows the move list only. */
  function buildBoard() {
    boardNode.replaceChildren();
    cellNodes = [];
    boardNodes = [];
    const grid = game.grid;
    const nine = !!grid && game.cells === 81 && !game.marks;
    boardNode.classList.toggle("small", !!grid && !nine);
    boardNode.hidden = !grid;
    const plain = !!grid && !nine;   // a plain grid, sized by its rows and columns
    boardNode.classList.toggle("many", plain && grid[0] * grid[1] > 9);
    if (plain) {
      cellNodes = A.gridCells(boardNode, grid);
      return;
    }
    boardNode.style.gridTemplateColumns = "";       // nine boards of 3x3, or none: style.css's
    boardNode.style.gridTemplateRows = "";
    boardNode.style.aspectRatio = "";
    boardNode.dataset.rows = grid ? String(grid[0]) : "";
    boardNode.dataset.columns = grid ? String(grid[1]) : "";
    if (nine) {
      for (let b = 0; b < 9; b++) {
        const sb = el("div", { className: "sb", dataset: { board: String(b) } });
        for (let s = 0; s < 9; s++) {
          const cell = el("div", { className: "cell", dataset: { cell: String(b * 9 + s), mark: "" } });
          cellNodes[b * 9 + s] = cell;
          sb.append(cell);
        }
        boardNodes.push(sb);
        boardNode.append(sb);
      }
    }
  }

  function buildMoveList() {
    const longest = game.moves.reduce(function (m, mv) { return Math.max(m, mv[2] || 0); }, 0) || 1;
    const rows = game.moves.map(function (mv, i) {
      if (i < (game.opening || 0)) return openingRow(mv, i);
      const sub = game.subs[String(i + 1)];
      const wall = el("td", { className: "num" }, [
        el("span", { className: "bar", attrs: { style: "width:" + Math.max(1, 48 * mv[2] / longest).toFixed(0) + "px" } }),
        ms(mv[2])]);
      return el("tr", { dataset: { ply: String(i + 1) }, title: sub ? "played by the referee: " + sub : "" }, [
        el("td", { className: "num" }, String(i + 1)),
        el("td", { className: "text" }, [markSpan(mv[1]), " ", botName(game.bots[mv[1]])]),
        el("td", { className: "text" + (sub ? " sub" : "") }, [moveText(mv, i),
          game.cells === 81 && mv[0] >= 0 ? el("small", null, "  b" + Math.floor(mv[0] / 9) + " s" + (mv[0] % 9)) : null,
          sub ? " (referee)" : null]),
        wall,
        el("td", { className: "num" }, ms(mv[3])),
      ]);
    });
    moveBody.replaceChildren.apply(moveBody, rows);
  }

  /* a move as its game writes it (game.texts, when that is not the move's number) */
  function moveText(mv, i) {
    if (game.texts) return game.texts[i];
    return mv[0] >= 0 ? String(mv[0]) : "?";
  }

  /* a move of the opening: played by the referee before the bots took over, no times */
  function openingRow(mv, i) {
    return el("tr", { className: "opening", dataset: { ply: String(i + 1) }, title: "part of the opening" }, [
      el("td", { className: "num" }, String(i + 1)),
      el("td", { className: "text" }, [markSpan(mv[1]), " ", botName(game.bots[mv[1]])]),
      el("td", { className: "text" }, [moveText(mv, i),
        game.cells === 81 ? el("small", null, "  b" + Math.floor(mv[0] / 9) + " s" + (mv[0] % 9)) : null,
        el("span", { className: "badge" }, "opening")]),
      el("td", { className: "num" }, "–"),
      el("td", { className: "num" }, "–"),
    ]);
  }

  /* the heading and the result (viewer.js writes the rest of the header) */
  function buildHeader() {
    const title = document.getElementById("replay-title");
    title.replaceChildren("Game " + game.no + ": ", botLink(game.bots[0]), " (x) vs ", botLink(game.bots[1]), " (o)");
    const result = document.getElementById("result");
    const faulty = game.faulted === 0 || game.faulted === 1;
    const how = el("div", { className: "muted" });
    if (faulty) {
      how.append("Ended by a fault: ", el("span", { className: "badge bad" }, label(game.termination)), " " + game.reason);
    } else if (game.termination === "normal") {
      how.append("Ended by the rules after " + game.moves.length + " moves (" + (game.reason || "normal") + ").");
    } else {
      how.append("Ended: " + label(game.termination) + (game.reason ? " · " + game.reason : ""));
    }
    result.replaceChildren(el("div", null, [el("strong", null, "Result: "), resultText()]), how);
    if (game.error) result.append(el("p", { className: "status error" }, game.error));
  }

  /* --- one position --------------------------------------------------------------------- */

  function statusAt(k) {
    for (let i = k; i >= 0; i--) {
      const s = game.status[String(i)];
      if (s !== undefined) return s;
    }
    return null;
  }

  /* the board, whose move it is and what happened, after k moves */
  function draw(k) {
    const n = game.moves.length;
    step = k;
    const marks = [];
    let last = step > 0 ? game.moves[step - 1][0] : -1;
    if (game.marks) {
      const now = game.marks[Math.min(step, game.marks.length - 1)];
      const before = step > 0 ? game.marks[Math.min(step - 1, game.marks.length - 1)] : now;
      last = -1;
      for (let c = 0; c < now.length; c++) {
        if (now[c] !== ".") marks[c] = now[c];
        if (now[c] !== before[c] && now[c] !== ".") last = c;  // the square the move filled
      }
    } else {
      for (let i = 0; i < step; i++) {
        const mv = game.moves[i];
        if (mv[0] >= 0) marks[mv[0]] = MARK[mv[1]];
      }
    }
    cellNodes.forEach(function (node, c) {
      const mark = marks[c] || "";
      if (node.dataset.mark !== mark) {
        node.dataset.mark = mark;
        node.textContent = mark.toUpperCase();
      }
      node.classList.toggle("last", c === last);
    });
    const finished = step === n && game.over;
    const target = step > 0 ? game.moves[step - 1][4] : game.start;
    const boards = statusAt(step);
    boardNodes.forEach(function (node, b) {
      const s = boards ? boards[b] : ".";
      node.classList.toggle("won-x", s === "x");
      node.classList.toggle("won-o", s === "o");
      node.classList.toggle("closed", s !== ".");
      node.classList.toggle("target", !finished && (target === b || (target < 0 && s === ".")));
    });
    const toMove = step < n ? game.moves[step][1] : (step > 0 ? 1 - game.moves[step - 1][1] : 0);
    document.querySelectorAll("#players .player").forEach(function (node) {
      node.classList.toggle("to-move", !finished && Number(node.dataset.seat) === toMove);
    });
    describe(target, toMove, finished);
  }

  function nextBoard(target) {
    if (game.cells !== 81) return "";
    return target >= 0 ? " in board " + target : " in any open board";
  }

  /* "X mine ran out of time on its move in board 4, so random wins." */
  function faultSentence(target, toMove) {
    const seat = game.faulted;
    const verb = league.faultVerbs[game.termination] || "faulted (" + label(game.termination) + ")";
    const when = game.termination !== "startup_failure" && seat === toMove
      ? " on its move" + nextBoard(target) : "";
    return [markSpan(seat), " " + botName(game.bots[seat]) + " " + verb + when + ", so "
      + botName(game.bots[1 - seat]) + " wins."];
  }

  function describe(target, toMove, finished) {
    const now = document.getElementById("now");
    const n = game.moves.length;
    const parts = [];
    if (step === 0) {
      parts.push(el("div", { className: "big" }, "Start position"));
    } else {
      const mv = game.moves[step - 1];
      const sub = game.subs[String(step)];
      const opening = step <= (game.opening || 0);
      parts.push(el("div", { className: "big" }, ["Move " + step + " of " + n + ": ", markSpan(mv[1]), " ",
        botName(game.bots[mv[1]]), opening ? " starts with " : " played ", mv[0] >= 0 ? where(mv[0]) : "?"]));
      if (opening) {
        parts.push(el("div", null, ["Opening move " + step + " of " + game.opening
          + ": played by the referee, not chosen by the bot."]));
      } else {
        parts.push(el("div", null, "time: " + ms(mv[2]) + " ms wall, " + ms(mv[3]) + " ms cpu"));
      }
      if (sub) parts.push(el("div", { className: "status error" }, "played by the referee for the bot: " + sub));
    }
    if (finished) {
      parts.push(el("div", null, ["Game over: ", resultText()]));
    } else if (step === n && (game.faulted === 0 || game.faulted === 1)) {
      parts.push(el("div", { className: "status error" }, faultSentence(target, toMove)));
    } else if (step === n) {
      parts.push(el("div", null, ["The game ended here: ", resultText()]));
    } else {
      parts.push(el("div", { className: "muted" }, [markSpan(toMove), " " + botName(game.bots[toMove]) + " to move" + nextBoard(target)]));
    }
    now.replaceChildren.apply(now, parts);
  }

  /* --- the frame: viewer.js ------------------------------------------------------------ */

  A.replayViewer({
    hashKey: "m",
    steps: function (g) { return g.moves.length; },
    stepAsked: function (g, params) { return params.m === undefined ? undefined : parseInt(params.m, 10) || 0; },
    marker: markSpan,
    seatTag: function (seat) { return MARK[seat]; },
    build: function (data, g) {
      league = data;
      game = g;
      buildHeader();
      buildBoard();
      buildMoveList();
    },
    draw: draw,
  });
})();
