/* bot-arena static site: the replay viewer's frame, whatever the game: the game the hash
 * names (#g=N) loaded from data/moves/CHUNK.js, its facts line, players, stderr and links to
 * the games beside it, and stepping through it with the buttons, the slider, the step list,
 * the arrow keys and Home / End; and a board's grid of rows and columns. What a step is and
 * how the board is drawn is the page's other script's: replay.js steps a move at a time,
 * turns.js a turn of every seat's moves. */
(function () {
  "use strict";
  const A = window.Arena;
  const el = A.el;

  function rulesText(rules) {
    const parts = Object.keys(rules || {}).map(function (k) { return k + ": " + rules[k]; });
    return parts.length ? " (" + parts.join(", ") + ")" : "";
  }

  /** Lay board out as grid[0] rows of grid[1] squares, a cell each (div.cell, data-cell its
   *  number from 0, data-mark empty); returns the cells in order. */
  function gridCells(board, grid) {
    board.style.gridTemplateColumns = "repeat(" + grid[1] + ", minmax(0, 1fr))";
    board.style.gridTemplateRows = "repeat(" + grid[0] + ", minmax(0, 1fr))";
    board.style.aspectRatio = grid[1] + " / " + grid[0];
    board.dataset.rows = String(grid[0]);
    board.dataset.columns = String(grid[1]);
    const cells = [];
    for (let c = 0; c < grid[0] * grid[1]; c++) {
      cells.push(el("div", { className: "cell", dataset: { cell: String(c), mark: "" } }));
    }
    board.append.apply(board, cells);
    return cells;
  }

  /** The step a row of the step list shows the board after: its data-step, else (a list of
   *  every step) its place, row i after step i + 1. */
  function stepOf(row, i) {
    return row.dataset.step ? Number(row.dataset.step) : i + 1;
  }

  /** Run the viewer for games of one kind, which says:
   *  hashKey: the hash's key of the step shown (#g=N&KEY=K), steps(game): how many there are,
   *  stepAsked(game, params): the step the hash's params ask for, or undefined when none,
   *  marker(seat): the node marking a seat, seatTag(seat): a seat's name in a heading,
   *  build(league, game): the title, result, board and step list of a game just loaded,
   *  draw(step): the board and what happened, K steps in (the rest is drawn here); the step
   *  list's rows are every step's in order, or carry data-step (a page of the steps). */
  function replayViewer(kind) {
    const status = document.getElementById("replay-status");
    const view = document.getElementById("replay");
    const scrub = document.getElementById("scrub");
    const stepBody = document.querySelector("#movelist tbody");
    const controls = document.getElementById("controls");
    let league = null;
    let game = null;       // the game shown
    let step = 0;          // steps played on the board shown
    let loading = 0;

    function buildFrame() {
      const no = game.no;
      document.title = "Game " + no + " · " + league.title;
      const started = game.started ? " · started " + game.started.replace("T", " ") : "";
      document.getElementById("replay-sub").textContent = game.game + rulesText(game.rules)
        + " · " + game.fixture + " · seed " + game.seed + started
        + (game.durationMs ? " · " + (game.durationMs / 1000).toFixed(2) + " s" : "")
        + (game.opening ? " · starts from a " + game.opening + "-move opening" : "");
      const players = document.getElementById("players");
      players.replaceChildren.apply(players, game.bots.map(function (ref, seat) {
        return el("div", { className: "player", dataset: { seat: String(seat) } },
          [kind.marker(seat), el("span", { className: "name" }, A.botLink(league, ref))]);
      }));
      const detail = document.getElementById("fault-detail");
      detail.replaceChildren();
      game.bots.forEach(function (ref, seat) {
        const tail = game.stderr[seat] || "";
        if (!tail.trim()) return;
        detail.append(el("h2", null, ["stderr of ", A.botName(league, ref), " (" + kind.seatTag(seat) + "), last part"]),
          el("pre", { className: "stderr" }, tail));
      });
      const nav = document.getElementById("gamenav");
      const page = Math.ceil(no / league.pageGames);
      nav.replaceChildren(
        no > 1 ? el("a", { href: "#g=" + (no - 1) }, "← game " + (no - 1)) : el("span", { className: "muted" }, "first game"),
        el("a", { href: "games.html#page=" + page }, "games list"),
        no < league.games ? el("a", { href: "#g=" + (no + 1) }, "game " + (no + 1) + " →") : el("span", { className: "muted" }, "last game"));
    }

    function show(k) {
      const n = kind.steps(game);
      step = Math.min(Math.max(k, 0), n);
      kind.draw(step);
      document.getElementById("ply").textContent = step + " / " + n;
      scrub.max = String(n);
      scrub.value = String(step);
      A.setSteps(controls, step, 0, n);
      let current = null;
      Array.prototype.forEach.call(stepBody.rows, function (row, i) {
        const after = stepOf(row, i);       // the row shows the board after this step
        row.classList.toggle("current", after === step);
        row.classList.toggle("future", after > step);
        if (after === step) current = row;
      });
      if (current) {
        const wrap = current.closest(".movelist-wrap");
        wrap.scrollTop = Math.max(0, current.offsetTop - wrap.clientHeight / 2);
      }
      const hash = { g: game.no };
      hash[kind.hashKey] = step;
      A.setHash(hash);
    }

    function open() {
      const params = A.hashParams();
      const no = parseInt(params.g, 10) || 1;
      if (game && game.no === no) {
        const asked = kind.stepAsked(game, params);
        if (asked !== undefined) show(asked);
        return;
      }
      if (no < 1 || no > league.games) {
        A.showError(status, "There is no game " + no + " (games are numbered 1 to " + league.games + ").");
        view.hidden = true;
        return;
      }
      const ticket = ++loading;
      status.classList.remove("error");
      status.hidden = false;
      status.textContent = "Loading game " + no + "…";
      A.loadData("moves/" + Math.floor((no - 1) / league.chunkGames)).then(function (chunk) {
        if (ticket !== loading) return;
        game = chunk.games[no - chunk.first];
        buildFrame();
        kind.build(league, game);
        view.hidden = false;
        status.hidden = true;
        const asked = kind.stepAsked(game, params);
        show(asked === undefined ? 0 : asked);
      }).catch(function (err) { A.showError(status, err); });
    }

    controls.addEventListener("click", function (event) {
      const button = event.target.closest("button[data-go]");
      if (!button || !game) return;
      show(A.stepTo(button.dataset.go, step, 0, kind.steps(game)));
    });
    scrub.addEventListener("input", function () { if (game) show(parseInt(scrub.value, 10)); });
    stepBody.addEventListener("click", function (event) {
      const row = event.target.closest("tr");
      if (row && row.parentNode === stepBody && !event.target.closest("a")) show(stepOf(row, row.sectionRowIndex));
    });
    document.addEventListener("keydown", function (event) {
      if (!game || event.altKey || event.ctrlKey || event.metaKey || event.target === scrub) return;
      const go = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[event.key];
      if (go === undefined) return;
      event.preventDefault();
      show(A.stepTo(go, step, 0, kind.steps(game)));
    });
    window.addEventListener("hashchange", open);

    A.loadData("league").then(function (data) {
      league = data;
      open();
    }).catch(function (err) { A.showError(status, err); });
  }

  A.replayViewer = replayViewer;
  A.gridCells = gridCells;
})();
