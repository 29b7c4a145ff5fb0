/* bot-arena static site: the games list's rows of games of two seats: who played x and o,
 * the result, how the game ended. gamelist.js pages through them. */
(function () {
  "use strict";
  const A = window.Arena;
  const el = A.el;

  function botCell(league, ref, won) {
    return el("td", { className: "text" + (won ? " strong" : "") }, A.botLink(league, ref));
  }

  function row(league, r, focus) {
    const no = r[0], x = r[1], o = r[2], winner = r[3], termination = r[4], faulted = r[5];
    const moves = r[6], round = r[7];
    let result;
    if (winner === 0 || winner === 1) result = A.botName(league, winner === 0 ? x : o) + " wins";
    else result = "draw";
    const resultCell = el("td", { className: "text result" });
    if (focus !== null) {
      const seat = x === focus ? 0 : 1;
      const kind = winner === null ? "draw" : winner === seat ? "win" : "loss";
      resultCell.append(el("span", { className: "badge " + kind }, kind.toUpperCase()[0]), " ");
    }
    resultCell.append(result);
    const label = A.terminationLabel(league, termination);
    const ended = el("td", { className: "text" });
    if (faulted === 0 || faulted === 1) {
      ended.append(el("span", { className: "badge bad" }, label), " by " + A.botName(league, faulted === 0 ? x : o));
    } else {
      ended.append(el("span", { className: "muted" }, label));
    }
    return el("tr", null, [
      el("td", { className: "num" }, el("a", { href: "replay.html#g=" + no, title: "replay game " + no }, String(no))),
      el("td", { className: "num" }, round === null ? "–" : String(round)),
      botCell(league, x, winner === 0), botCell(league, o, winner === 1),
      resultCell, ended,
      el("td", { className: "num" }, String(moves)),
      el("td", { className: "text" }, el("a", { href: "replay.html#g=" + no }, "replay ›")),
    ]);
  }

  A.gamesList(row);
})();
