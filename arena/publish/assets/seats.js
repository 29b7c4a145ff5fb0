/* bot-arena static site: the games list's rows of games of more than two seats (a tron
 * league of 3 or 4 players): every seat's bot, version and place, the ranking, and who went
 * out for a fault. gamelist.js pages through them. A row carries after the eight fields of a
 * game of two seats (games.js) the bots of seats 2.., the ranking (each seat's place from 0,
 * ties sharing the best), each seat's version and the seats put out as [seat, termination]
 * (publish/data.py game_row). */
(function () {
  "use strict";
  const A = window.Arena;
  const el = A.el;
  const ordinal = A.ordinal;
  const seatColumns = document.querySelectorAll("#games thead th[data-seat]").length;

  /* A game as the row gives it: its seats' bots, places, versions and faults. */
  function gameOf(r) {
    const seats = [r[1], r[2]].concat(r[8]);
    const out = {};
    for (const o of r[11] || []) out[o[0]] = o[1];
    if (r[5] !== null) out[r[5]] = r[4];     // the fault that ended the game
    return { no: r[0], seats: seats, termination: r[4], faulted: r[5], moves: r[6], round: r[7],
             ranking: r[9], versions: r[10], out: out };
  }

  function seatCell(league, game, seat) {
    if (seat >= game.seats.length) return el("td", { className: "text" });
    const first = game.ranking && game.ranking[seat] === 0;
    const name = el("span", { className: "name" }, A.botLink(league, game.seats[seat]));
    name.style.whiteSpace = "nowrap";       // a line breaks after the name, not inside it
    const parts = [name];
    if (game.versions) parts.push(" ", el("small", { className: "muted version" }, "v" + game.versions[seat]));
    if (game.ranking) parts.push(" ", el("span", { className: "place" }, ordinal(game.ranking[seat] + 1)));
    if (seat in game.out) {
      parts.push(" ", el("span", { className: "badge bad" }, A.terminationLabel(league, game.out[seat])));
    }
    return el("td", { className: "text seat" + (first ? " strong" : ""), dataset: { seat: String(seat) } }, parts);
  }

  /* "1st a, 2nd b, 2nd c, 4th d": the seats in their order of finish (b and c tied). */
  function rankingCell(league, game, focus) {
    const cell = el("td", { className: "text ranking" });
    if (!game.ranking) {
      cell.append("no ranking");
      return cell;
    }
    const mine = focus === null ? -1 : game.seats.indexOf(focus);
    if (mine >= 0) {
      const place = game.ranking[mine];
      const last = Math.max.apply(null, game.ranking);
      const kind = place === 0 ? "win" : place === last ? "loss" : "draw";
      cell.append(el("span", { className: "badge " + kind }, ordinal(place + 1)), " ");
    }
    const order = game.seats.map(function (_b, s) { return s; });
    order.sort(function (a, b) { return game.ranking[a] - game.ranking[b] || a - b; });
    order.forEach(function (seat, i) {
      const entry = el("span", null, ordinal(game.ranking[seat] + 1) + " " + A.botName(league, game.seats[seat]));
      entry.style.whiteSpace = "nowrap";    // a line breaks between two places, not inside one
      cell.append(i ? ", " : "", entry);
    });
    return cell;
  }

  function endedCell(league, game) {
    const ended = el("td", { className: "text" });
    const faults = Object.keys(game.out).map(Number).sort(function (a, b) { return a - b; });
    if (!faults.length) {
      ended.append(el("span", { className: "muted" }, A.terminationLabel(league, game.termination)));
      return ended;
    }
    faults.forEach(function (seat, i) {
      ended.append(i ? ", " : "", el("span", { className: "badge bad" }, A.terminationLabel(league, game.out[seat])),
        " " + A.botName(league, game.seats[seat]) + (seat === game.faulted ? "" : " out"));
    });
    return ended;
  }

  function row(league, r, focus) {
    const game = gameOf(r);
    const cells = [
      el("td", { className: "num" }, el("a", { href: "replay.html#g=" + game.no, title: "replay game " + game.no }, String(game.no))),
      el("td", { className: "num" }, game.round === null ? "–" : String(game.round))];
    for (let seat = 0; seat < seatColumns; seat++) cells.push(seatCell(league, game, seat));
    cells.push(rankingCell(league, game, focus), endedCell(league, game),
      el("td", { className: "num" }, String(game.moves)),
      el("td", { className: "text" }, el("a", { href: "replay.html#g=" + game.no }, "replay\u00a0›")));
    return el("tr", { dataset: { game: String(game.no) } }, cells);
  }

  A.gamesList(row);
})();
