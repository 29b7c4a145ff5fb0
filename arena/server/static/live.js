/* bot-arena server: the leaderboard follows the ladder without reloading the page.
 * Polls /api/leaderboard; when the standings changed, fetches the table as the site renders
 * it (/leaderboard/table, escaped by the server) and puts it in place of the old one, and
 * the list of participants' bots from the JSON's owners. */
(function () {
  "use strict";
  const holder = document.getElementById("standings");
  if (!holder) return;
  const count = document.getElementById("games-count");
  const status = document.getElementById("live-status");
  const owners = document.getElementById("owners");
  const ownersSection = document.getElementById("owners-section");
  const POLL_MS = 2000;
  let generation = holder.dataset.generation;

  function json(url) {
    return fetch(url, { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return url.indexOf("/api/") === 0 ? r.json() : r.text();
    });
  }

  /* the list of participants' bots, as the page renders it (names as text only) */
  function renderOwners(map) {
    const bots = Object.keys(map || {}).sort();
    owners.replaceChildren.apply(owners, bots.map(function (bot) {
      const item = document.createElement("li");
      const link = document.createElement("a");
      link.href = "/bots/" + encodeURIComponent(bot);
      link.textContent = bot;
      item.append(link, ": " + map[bot]);
      return item;
    }));
    ownersSection.hidden = bots.length === 0;
  }

  function poll() {
    json("/api/leaderboard").then(function (board) {
      if (String(board.generation) === String(generation)) return null;
      return json("/leaderboard/table").then(function (html) {
        const table = new DOMParser().parseFromString(html, "text/html").querySelector("table");
        if (!table) return;
        holder.replaceChildren(document.importNode(table, true));
        generation = board.generation;
        holder.dataset.generation = generation;
        count.textContent = String(board.games);
        const reading = document.getElementById("reading");   /* the first reading is done */
        if (reading) reading.hidden = Boolean(!board.reading);
        renderOwners(board.owners);
      });
    }).then(function () {
      status.textContent = "";
    }).catch(function (err) {
      status.textContent = "Live updates paused: " + err.message;
    }).finally(function () { setTimeout(poll, POLL_MS); });
  }
  setTimeout(poll, POLL_MS);
})();
