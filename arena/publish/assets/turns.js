/* bot-arena static site: the replay viewer of a game whose seats move at once (tron), a
 * turn at a time (viewer.js is the frame: loading, the controls, the keys). #g=N&t=K shows
 * game N after K turns (#g=N&m=K, as other pages link a game: the turn of its K-th move).
 * The publisher replayed the game through its rules (data/moves/CHUNK.js): the board's
 * letters at the start and, per turn, every seat's move and the squares that changed, so
 * this file knows no rules. A letter is a seat's trail ('a' seat 0 .. 'd' seat 3), its head
 * in capitals; any number of seats is drawn. */
(function () {
  "use strict";
  const A = window.Arena;
  const el = A.el;
  const ms = A.ms;
  const ordinal = A.ordinal;
  const boardNode = document.getElementById("board");
  const turnBody = document.querySelector("#movelist tbody");
  let league = null;
  let game = null;       // the game shown
  let step = 0;          // turns played on the board shown
  let cellNodes = [];

  /* one colour a seat: its head full, its trail a light tint of it */
  const COLOURS = ["#2f6fd6", "#d6452f", "#2f9e44", "#b8860b", "#8e44ad", "#16a2b8"];
  const TINTS = ["#9dbcf0", "#f0a89c", "#9dd3a9", "#e2c67a", "#c8a2d9", "#8fd6e0"];
  const TRAILS = "abcdefghijklmnopqrstuvwxyz";

  function colour(seat) { return COLOURS[seat % COLOURS.length]; }

  function seatOf(mark) {
    const seat = TRAILS.indexOf(mark.toLowerCase());
    return seat < 0 ? null : seat;
  }

  function botName(ref) { return A.botName(league, ref); }

  function botLink(ref) { return A.botLink(league, ref); }

  function swatch(seat) {
    const node = el("span", { className: "swatch", title: "seat " + seat });
    node.style.background = colour(seat);
    return node;
  }

  function label(termination) { return A.terminationLabel(league, termination); }

  /* seat -> the termination of its fault, for each seat a fault put out or ended the game of */
  function faultsBySeat() {
    const out = {};
    game.out.forEach(function (o) { out[o[0]] = o[2]; });
    if (game.faulted !== null && game.faulted !== undefined) out[game.faulted] = game.termination;
    return out;
  }

  /* "1st mine, 2nd random (out for a fault: timeout)", in rank order */
  function rankingNodes() {
    if (!game.ranking) return ["no ranking: " + label(game.termination)];
    const faults = faultsBySeat();
    const seats = game.bots.map(function (_b, s) { return s; });
    seats.sort(function (a, b) { return game.ranking[a] - game.ranking[b] || a - b; });
    const parts = [];
    seats.forEach(function (seat, i) {
      if (i) parts.push(", ");
      const tied = game.ranking.filter(function (r) { return r === game.ranking[seat]; }).length > 1;
      parts.push(el("span", { className: "rank", dataset: { seat: String(seat), rank: String(game.ranking[seat]) } }, [
        ordinal(game.ranking[seat] + 1) + (tied ? " (tied) " : " "), swatch(seat), " ", botName(game.bots[seat]),
        faults[seat] ? " (out for a fault: " + label(faults[seat]) + ")" : ""]));
    });
    return parts;
  }

  /* --- building the page for one game ---------------------------------------------------- */

  function buildBoard() {
    boardNode.replaceChildren();
    cellNodes = [];
    const grid = game.grid;
    boardNode.hidden = !grid;
    if (!grid) return;
    cellNodes = A.gridCells(boardNode, grid);
    boardNode.style.gap = "1px";                    // many small squares: thin lines
    cellNodes.forEach(function (cell) { cell.style.borderRadius = "1px"; });
  }

  function buildTurnList() {
    const rows = game.turns.map(function (turn, i) {
      const moves = el("td", { className: "text" });
      turn[0].forEach(function (mv, j) {
        if (j) moves.append("  ");
        moves.append(swatch(mv[0]), " " + mv[1]);
        if (mv[4]) moves.append(el("span", { className: "sub", title: "played by the referee: " + mv[4] }, " (referee)"));
      });
      const times = function (k) { return turn[0].map(function (mv) { return ms(mv[k]); }).join(" / "); };
      return el("tr", { dataset: { turn: String(i + 1) } }, [
        el("td", { className: "num" }, String(i + 1)), moves,
        el("td", { className: "num" }, times(2)), el("td", { className: "num" }, times(3))]);
    });
    turnBody.replaceChildren.apply(turnBody, rows);
  }

  /* the heading and the result (viewer.js writes the rest of the header) */
  function buildHeader() {
    const title = document.getElementById("replay-title");
    const names = ["Game " + game.no + ": "];
    game.bots.forEach(function (ref, seat) { names.push(seat ? ", " : "", botLink(ref)); });
    title.replaceChildren.apply(title, names);
    const result = document.getElementById("result");
    const how = el("div", { className: "muted" });
    if (game.faulted !== null && game.faulted !== undefined) {
      how.append("Ended by a fault: ", el("span", { className: "badge bad" }, label(game.termination)), " " + game.reason);
    } else {
      how.append("Ended: " + label(game.termination) + " after " + game.turns.length + " turns"
        + (game.reason ? " · " + game.reason : "") + ".");
    }
    game.out.forEach(function (o) {
      how.append(el("div", null, [swatch(o[0]), " " + botName(game.bots[o[0]]) + " out on turn " + (o[1] + 1)
        + " (" + label(o[2]) + "): " + o[3]]));
    });
    result.replaceChildren(el("div", { id: "ranking" }, [el("strong", null, "Ranking: ")].concat(rankingNodes())), how);
    if (game.error) result.append(el("p", { className: "status error" }, game.error));
  }

  /* --- one position --------------------------------------------------------------------- */

  /* the board's letters after k turns: the start with each turn's changes applied */
  function marksAfter(k) {
    const marks = game.board ? game.board.split("") : [];
    for (let i = 0; i < k; i++) {
      game.turns[i][1].forEach(function (change) { marks[change[0]] = change[1]; });
    }
    return marks;
  }

  /* the board and what happened, after k turns */
  function draw(k) {
    const n = game.turns.length;
    step = k;
    const marks = marksAfter(step);
    cellNodes.forEach(function (node, c) {
      const mark = marks[c] === "." ? "" : marks[c];
      if (node.dataset.mark === mark) return;
      node.dataset.mark = mark;
      const seat = mark ? seatOf(mark) : null;
      const head = !!mark && mark !== mark.toLowerCase();
      node.style.background = seat === null ? "" : head ? colour(seat) : TINTS[seat % TINTS.length];
      node.style.boxShadow = head ? "inset 0 0 0 2px #111" : "";
      node.title = seat === null ? "" : botName(game.bots[seat]) + (head ? ": head" : ": trail");
    });
    boardNode.dataset.turn = String(step);
    boardNode.dataset.marks = marks.join("");
    describe(step === n);
  }

  function describe(finished) {
    const now = document.getElementById("now");
    const parts = [];
    if (step === 0) {
      parts.push(el("div", { className: "big" }, "Start position"));
    } else {
      const turn = game.turns[step - 1];
      const said = el("div", { className: "big" }, "Turn " + step + " of " + game.turns.length + ": ");
      turn[0].forEach(function (mv, j) {
        said.append(j ? ", " : "", swatch(mv[0]), " " + botName(game.bots[mv[0]]) + " " + mv[1]);
      });
      parts.push(said);
      turn[0].forEach(function (mv) {
        if (mv[4]) parts.push(el("div", { className: "status error" }, botName(game.bots[mv[0]]) + ": played by the referee: " + mv[4]));
      });
      game.out.forEach(function (o) {
        if (o[1] === step - 1) {
          parts.push(el("div", { className: "status error" }, botName(game.bots[o[0]]) + " is out: " + label(o[2]) + ", " + o[3]));
        }
      });
    }
    if (finished) parts.push(el("div", null, [step ? "Game over. " : "", "Ranking: "].concat(rankingNodes())));
    now.replaceChildren.apply(now, parts);
  }

  /* --- the hash's turn ------------------------------------------------------------------- */

  /* the turn a link's #m=K (K moves played, as the fault lists link a game) falls in */
  function turnOfMove(k) {
    let moves = 0;
    for (let i = 0; i < game.turns.length; i++) {
      moves += game.turns[i][0].length;
      if (moves >= k) return i + 1;
    }
    return game.turns.length;
  }

  /* the turn the hash asks for: #t=K, or #m=K moves; undefined when it asks for none */
  function turnAsked(params) {
    if (params.t !== undefined) return parseInt(params.t, 10) || 0;
    if (params.m !== undefined) return turnOfMove(parseInt(params.m, 10) || 0);
    return undefined;
  }

  /* --- the frame: viewer.js ------------------------------------------------------------ */

  A.replayViewer({
    hashKey: "t",
    steps: function (g) { return g.turns.length; },
    stepAsked: function (g, params) { return turnAsked(params); },
    marker: swatch,
    seatTag: function (seat) { return "seat " + seat; },
    build: function (data, g) {
      league = data;
      game = g;
      buildHeader();
      buildBoard();
      buildTurnList();
    },
    draw: draw,
  });
})();
