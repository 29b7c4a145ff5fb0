/* bot-arena static site: a bot page's fault list, past its first page (data/faults/ID/N.js).
 * The markup matches what the publisher writes for the first page. */
(function () {
  "use strict";
  const A = window.Arena;
  const el = A.el;
  const pager = document.getElementById("fault-pager");
  const list = document.getElementById("faults");
  if (!pager || !list) return;
  const bot = pager.dataset.bot;
  const pages = parseInt(pager.dataset.pages, 10);
  let page = 1;            // 1 = newest faults
  let league = null;

  function item(f) {
    const no = f[0], opponent = f[1], seat = f[2], termination = f[3], reason = f[4], stderr = f[5], moves = f[6];
    const versus = typeof opponent === "number" ? league.bots[opponent].name : "?";
    const tail = stderr.trim()
      ? el("details", null, [el("summary", null, "stderr, last part"), el("pre", { className: "stderr" }, stderr)])
      : el("p", { className: "muted" }, "stderr was empty");
    return el("li", { className: "fault" }, [
      el("div", { className: "fault-head" }, [
        el("span", { className: "badge bad" }, A.terminationLabel(league, termination)), " ",
        el("a", { href: "../replay.html#g=" + no + "&m=" + moves }, "game " + no),
        " vs " + versus + " as " + (seat < 2 ? (league.seatNames || "xo")[seat] : "seat " + seat) + ", after " + moves + " moves"]),
      el("p", { className: "reason" }, reason), tail]);
  }

  function show(to) {
    A.loadData("faults/" + bot + "/" + to).then(function (data) { return data.rows; })
    .then(function (rows) {
      page = to;
      list.replaceChildren.apply(list, rows.map(item));
      A.showPage(pager, page, pages);
      pager.scrollIntoView({ block: "nearest" });
    }).catch(function (err) { A.showError(pager.querySelector(".where"), err); });
  }

  pager.addEventListener("click", function (event) {
    const button = event.target.closest("button[data-go]");
    if (!button || !league) return;
    show(A.stepTo(button.dataset.go, page, 1, pages));
  });
  A.loadData("league").then(function (data) { league = data; });
})();
