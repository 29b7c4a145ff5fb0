/* bot-arena static site: the games list's paging, one page of data/games/... at a time: the
 * pagers (first, previous, next, last), the bot filter and the status line.
 * The hash says what is shown: #page=3, or #bot=SLUG&page=2 for one bot's games.
 * A row is the page's other script's: games.js for games of two seats, seats.js for more. */
(function () {
  "use strict";
  const A = window.Arena;

  /** Fill the games list; row(league, r, focus) makes the <tr> of r, a row of data/games/...
   *  (publish/data.py game_row), focus the id of the bot whose games are listed, else null. */
  function gamesList(row) {
    const status = document.getElementById("games-status");
    const body = document.querySelector("#games tbody");
    const filter = document.getElementById("bot-filter");
    const pagers = document.querySelectorAll("nav.pager");
    let league = null;
    let shown = { bot: "", page: 1, pages: 1 };

    function botBySlug(slug) {
      return league.bots.find(function (b) { return b.slug === slug; }) || null;
    }

    function render() {
      const params = A.hashParams();
      const bot = params.bot ? botBySlug(params.bot) : null;
      const pages = bot ? bot.pages : league.pages;
      const page = Math.min(Math.max(parseInt(params.page, 10) || 1, 1), pages);
      filter.value = bot ? bot.slug : "";
      shown = { bot: bot ? bot.slug : "", page: page, pages: pages };
      for (const nav of pagers) A.showPage(nav, page, pages);
      status.classList.remove("error");
      status.textContent = "Loading page " + page + "…";
      const key = "games/" + (bot ? bot.id : "all") + "/" + page;
      A.loadData(key).then(function (data) {
        if (shown.page !== page || shown.bot !== (bot ? bot.slug : "")) return;   // moved on
        body.replaceChildren.apply(body, data.rows.map(function (r) { return row(league, r, bot ? bot.id : null); }));
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
  }

  A.gamesList = gamesList;
})();
