/* bot-arena server: the leaderboard follows the ladder without reloading the page.
 * Polls /api/leaderboard and rebuilds the table's rows when the standings changed. Text
 * from the league (bot and owner names) only ever goes in as textContent. */
(function () {
  "use strict";
  const table = document.getElementById("standings");
  if (!table) return;
  const body = table.querySelector("tbody");
  const count = document.getElementById("games-count");
  const status = document.getElementById("live-status");
  const POLL_MS = 2000;
  let generation = table.dataset.generation;

  function cell(cls, content) {
    const td = document.createElement("td");
    td.className = cls;
    if (content instanceof Node) td.append(content); else td.textContent = content;
    return td;
  }

  function render(board) {
    const columns = board.rating_columns || [];
    const rows = board.rows.map(function (row) {
      const tr = document.createElement("tr");
      tr.dataset.bot = row.bot;
      const link = document.createElement("a");
      link.href = "/bots/" + encodeURIComponent(row.bot);
      link.textContent = row.bot;
      const faults = Object.values(row.faults || {}).reduce(function (a, b) { return a + b; }, 0);
      tr.append(cell("num", String(row.rank)), cell("text", link),
        cell("text", (board.owners || {})[row.bot] || "organiser"));
      columns.forEach(function (key) { tr.append(cell("num", Number(row[key]).toFixed(2))); });
      tr.append(cell("num", String(row.games)), cell("num", String(row.wins)), cell("num", String(row.draws)),
        cell("num", String(row.losses)), cell("num", String(faults)), cell("text", (row.marks || []).join(", ")));
      return tr;
    });
    body.replaceChildren.apply(body, rows);
    count.textContent = String(board.games);
  }

  function poll() {
    fetch("/api/leaderboard", { credentials: "same-origin", cache: "no-store" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.json();
    }).then(function (board) {
      if (String(board.generation) !== String(generation)) {
        generation = board.generation;
        table.dataset.generation = generation;
        render(board);
      }
      status.textContent = "";
    }).catch(function (err) {
      status.textContent = "Live updates paused: " + err.message;
    }).finally(function () { setTimeout(poll, POLL_MS); });
  }
  setTimeout(poll, POLL_MS);
})();
