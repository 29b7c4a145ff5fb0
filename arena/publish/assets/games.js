/* bot-arena static site: the games list, one page of data/games/... at a time.
 * The hash says what is shown: #page=3, or #bot=SLUG&page=2 for one bot's games. */
(function () {
  "use strict";
  const A = window.Arena;
  const el = A.el;
  const status = document.getElementById("games-status");
  const body = document.querySelector("#games tbody");
  const filter = document.getElementById("bot-filter");
  const pagers = document.querySelectorAll("nav.pager");
  let league = null;
  let shown = { bot: "", page: 1, pages: 1 };

  function botBySlug(slug) {
    return league.bots.find(function (b) { return b.slug === slug; }) || null;
  }

  function nameOf(ref) { return A.botName(league, ref); }

  function botCell(ref, won) {
    return el("td", { className: "text" + (won ? " strong" : "") }, A.botLink(league, ref));
  }

  function row(r, focus) {
    const no = r[0], x = r[1], o = r[2], winner = r[3], termination = r[4], faulted = r[5];
    const moves = r[6], round = r[7];
    let result;
    if (winner === 0 || winner === 1) result = nameOf(winner === 0 ? x : o) + " wins";
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
      ended.append(el("span", { className: "badge bad" }, label), " by " + nameOf(faulted === 0 ? x : o));
    } else {
      ended.append(el("span", { className: "muted" }, label));
    }
    return el("tr", null, [
      el("td", { className: "num" }, el("a", { href: "replay.html#g=" + no, title: "replay game " + no }, String(no))),
      el("td", { className: "num" }, round === null ? "–" : String(round)),
      botCell(x, winner === 0), botCell(o, winner === 1),
      resultCell, ended,
      el("td", { className: "num" }, String(moves)),
      el("td", { className: "text" }, el("a", { href: "replay.html#g=" + no }, "replay ›")),
    ]);
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
