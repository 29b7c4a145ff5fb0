/* bot-arena static site: the games list of a league of games of more than two seats (a
 * tron league of 3 or 4 players), one page of data/games/... at a time: every seat's bot,
 * version and place, the ranking, and who went out for a fault. games.js lists the games
 * of two seats; a row here carries after their eight fields the bots of seats 2.., the
 * ranking (each seat's place from 0, ties sharing the best), each seat's version and the
 * seats put out as [seat, termination] (publish/data.py game_row).
 * The hash says what is shown: #page=3, or #bot=SLUG&page=2 for one bot's games. */
(function () {
  "use strict";
  const A = window.Arena;
  const el = A.el;
  const ordinal = A.ordinal;
  const status = document.getElementById("games-status");
  const body = document.querySelector("#games tbody");
  const filter = document.getElementById("bot-filter");
  const pagers = document.querySelectorAll("nav.pager");
  const seatColumns = document.querySelectorAll("#games thead th[data-seat]").length;
  let league = null;
  let shown = { bot: "", page: 1, pages: 1 };

  function botBySlug(slug) {
    return league.bots.find(function (b) { return b.slug === slug; }) || null;
  }

  function nameOf(ref) { return A.botName(league, ref); }

  function botNode(ref) { return A.botLink(league, ref); }

  /* A game as the row gives it: its seats' bots, places, versions and faults. */
  function gameOf(r) {
    const seats = [r[1], r[2]].concat(r[8]);
    const out = {};
    for (const o of r[11] || []) out[o[0]] = o[1];
    if (r[5] !== null) out[r[5]] = r[4];     // the fault that ended the game
    return { no: r[0], seats: seats, termination: r[4], faulted: r[5], moves: r[6], round: r[7],
             ranking: r[9], versions: r[10], out: out };
  }

  function seatCell(game, seat) {
    if (seat >= game.seats.length) return el("td", { className: "text" });
    const first = game.ranking && game.ranking[seat] === 0;
    const name = el("span", { className: "name" }, botNode(game.seats[seat]));
    name.style.whiteSpace = "nowrap";       // a line breaks after the name, not inside it
    const parts = [name];
    if (game.versions) parts.push(" ", el("small", { className: "muted version" }, "v" + game.versions[seat]));
    if (game.ranking) parts.push(" ", el("span", { className: "place" }, ordinal(game.ranking[seat] + 1)));
    if (seat in game.out) parts.push(" ", el("span", { className: "badge bad" }, label(game.out[seat])));
    return el("td", { className: "text seat" + (first ? " strong" : ""), dataset: { seat: String(seat) } }, parts);
  }

  function label(termination) {
    return A.terminationLabel(league, termination);
  }

  /* "1st a, 2nd b, 2nd c, 4th d": the seats in their order of finish (b and c tied). */
  function rankingCell(game, focus) {
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
      const entry = el("span", null, ordinal(game.ranking[seat] + 1) + " " + nameOf(game.seats[seat]));
      entry.style.whiteSpace = "nowrap";    // a line breaks between two places, not inside one
      cell.append(i ? ", " : "", entry);
    });
    return cell;
  }

  function endedCell(game) {
    const ended = el("td", { className: "text" });
    const faults = Object.keys(game.out).map(Number).sort(function (a, b) { return a - b; });
    if (!faults.length) {
      ended.append(el("span", { className: "muted" }, label(game.termination)));
      return ended;
    }
    faults.forEach(function (seat, i) {
      ended.append(i ? ", " : "", el("span", { className: "badge bad" }, label(game.out[seat])),
        " " + nameOf(game.seats[seat]) + (seat === game.faulted ? "" : " out"));
    });
    return ended;
  }

  function row(r, focus) {
    const game = gameOf(r);
    const cells = [
      el("td", { className: "num" }, el("a", { href: "replay.html#g=" + game.no, title: "replay game " + game.no }, String(game.no))),
      el("td", { className: "num" }, game.round === null ? "–" : String(game.round))];
    for (let seat = 0; seat < seatColumns; seat++) cells.push(seatCell(game, seat));
    cells.push(rankingCell(game, focus), endedCell(game),
      el("td", { className: "num" }, String(game.moves)),
      el("td", { className: "text" }, el("a", { href: "replay.html#g=" + game.no }, "replay\u00a0›")));
    return el("tr", { dataset: { game: String(game.no) } }, cells);
  }

  function setPager(page, pages) {
    for (const nav of pagers) A.showPage(nav, page, pages);
  }

  function render() {
    const params = A.hashParams();
    const bot = params.bot ? botBySlug(params.bot) : null;
    const pages = bot ? bot.pages : league.pages;
    const page = Math.min(Math.max(parseInt(params.page, 10) || 1, 1), pages);
    filter.value = bot ? bot.slug : "";
    shown = { bot: bot ? bot.slug : "", page: page, pages: pages };
    setPager(page, pages);
    status.classList.remove("error");
    status.textContent = "Loading page " + page + "…";
    const key = "games/" + (bot ? bot.id : "all") + "/" + page;
    A.loadData(key).then(function (data) {
      if (shown.page !== page || shown.bot !== (bot ? bot.slug : "")) return;   // moved on
      body.replaceChildren.apply(body, data.rows.map(function (r) { return row(r, bot ? bot.id : null); }));
      const first = (page - 1) * league.pageGames + 1;
      const last = first + data.rows.length - 1;
      status.textContent = data.total
        ? "Games " + first.toLocaleString() + "–" + last.toLocaleString() + " of " + data.total.toLocaleString()
          + (bot ? " played by " + bot.name : "") + "."
        : "No games yet.";
    }).catch(function (err) { A.showError(status, err); });
  }

  function go(params) {
    A.setHash(params);
    render();
  }

  A.loadData("league").then(function (data) {
    league = data;
    for (const nav of pagers) {
      nav.addEventListener("click", function (event) {
        const button = event.target.closest("button[data-go]");
        if (!button) return;
        const to = A.stepTo(button.dataset.go, shown.page, 1, shown.pages);
        go(shown.bot ? { bot: shown.bot, page: to } : { page: to });
        if (nav.id === "games-pager-bottom") window.scrollTo(0, 0);
      });
    }
    filter.addEventListener("change", function () {
      go(filter.value ? { bot: filter.value, page: 1 } : { page: 1 });
    });
    window.addEventListener("hashchange", render);
    render();
  }).catch(function (err) { A.showError(status, err); });
})();
