/* bot-arena static site: the replay viewer of a game played by a referee process, its
 * transcript, an answer at a time (viewer.js is the frame: loading, the controls, the keys).
 * #g=N&m=K shows game N after K answers. There is no board: the referee played the rules.
 * The game's facts come from data/moves/CHUNK.js; its steps, PAGE of them a file, from
 * data/transcripts/GAME/P.js, loaded as the viewer steps into them: each step is what one
 * seat was given, what it answered, in how long, and the referee's ###Error lines after it.
 * Every text a bot or the referee wrote is shown as text. */
(function () {
  "use strict";
  const A = window.Arena;
  const el = A.el;
  const ms = A.ms;
  const panel = document.getElementById("transcript");
  const stepBody = document.querySelector("#movelist tbody");
  const pageNote = document.getElementById("step-page");
  let league = null;
  let game = null;       // the game shown
  let step = 0;          // answers shown
  let shownPage = 0;     // the page of steps the list holds

  const COLOURS = ["#2f6fd6", "#d6452f", "#2f9e44", "#b8860b"];

  function botName(ref) { return A.botName(league, ref); }

  function swatch(seat) {
    const node = el("span", { className: "swatch", title: "seat " + seat });
    node.style.background = COLOURS[seat % COLOURS.length];
    return node;
  }

  function seatName(seat) { return [swatch(seat), " " + botName(game.bots[seat]) + " (seat " + seat + ")"]; }

  function label(termination) { return A.terminationLabel(league, termination); }

  function pages() { return Math.max(1, Math.ceil(game.steps / game.pageSteps)); }

  function pageOf(k) { return Math.min(pages(), Math.max(1, Math.ceil(k / game.pageSteps))); }

  function load(page) { return A.loadData("transcripts/" + game.no + "/" + page); }

  /* "1st A, 2nd B", or why there is no ranking */
  function rankingNodes() {
    if (!game.ranking) return [label(game.termination) + (game.reason ? ": " + game.reason : "")];
    const seats = game.bots.map(function (_b, s) { return s; });
    seats.sort(function (a, b) { return game.ranking[a] - game.ranking[b] || a - b; });
    const parts = [];
    seats.forEach(function (seat, i) {
      const tied = game.ranking.filter(function (r) { return r === game.ranking[seat]; }).length > 1;
      parts.push(i ? ", " : "", el("span", { className: "rank", dataset: { seat: String(seat) } },
        [A.ordinal(game.ranking[seat] + 1) + (tied ? " (tied) " : " ")].concat(seatName(seat))));
    });
    return parts;
  }

  function errorItems(errors) {
    return errors.map(function (e) {
      return el("li", { className: "referee-error" }, ["###Error" + (e[0] === null ? "" : " about seat " + e[0]) + ": ", e[1]]);
    });
  }

  /* --- building the page for one game ---------------------------------------------------- */

  function buildHeader() {
    const title = document.getElementById("replay-title");
    const names = ["Game " + game.no + ": "];
    game.bots.forEach(function (ref, seat) { names.push(seat ? ", " : "", A.botLink(league, ref)); });
    title.replaceChildren.apply(title, names);
    const ref = game.referee;
    const result = document.getElementById("result");
    const how = el("div", { className: "muted" });
    if (game.faulted !== null && game.faulted !== undefined) {
      how.append("Ended by a fault: ", el("span", { className: "badge bad" }, label(game.termination)), " " + game.reason);
    } else if (game.termination === "referee_fault") {
      how.append("Void: ", el("span", { className: "badge bad" }, label(game.termination)), " " + game.reason
        + " (counted for no one)");
    } else {
      how.append("Ended by the referee after " + game.steps + " answers" + (game.reason ? " · " + game.reason : "") + ".");
    }
    const facts = el("div", { className: "muted" }, "Played by the referee process " + ref.name
      + (ref.fingerprint ? " (fingerprint " + ref.fingerprint + ")" : "") + ", "
      + (ref.seed === null ? "no seed told" : "told seed " + ref.seed) + ".");
    result.replaceChildren(el("div", { id: "ranking" }, [el("strong", null, "Ranking: ")].concat(rankingNodes())), how, facts);
    if (ref.cut !== null && ref.cut !== undefined) {
      result.append(el("p", { className: "muted" }, "The record's transcript was capped: from step " + (ref.cut + 1)
        + " on, the lines given were not kept and answers are cut short."));
    }
    const detail = document.getElementById("fault-detail");   // the bots' stderr, by viewer.js
    if ((ref.stderr || "").trim()) {
      detail.append(el("h2", null, "stderr of the referee " + ref.name + ", last part"),
        el("pre", { className: "stderr", id: "referee-stderr" }, ref.stderr));
    }
  }

  /* the step list: the rows of one page of steps (each carries its step: viewer.js) */
  function buildPage(page, data) {
    shownPage = page;
    const rows = data.steps.map(function (s, i) {
      const no = data.first + i;
      const answer = s[3].join(" | ");
      return el("tr", { dataset: { step: String(no) } }, [
        el("td", { className: "num" }, String(no)),
        el("td", { className: "text" }, seatName(s[0])),
        el("td", { className: "text answer" }, [answer.length > 60 ? answer.slice(0, 60) + "…" : answer,
          s[6].length ? el("span", { className: "badge bad", title: "the referee wrote ###Error after it" }, "###Error") : null]),
        el("td", { className: "num" }, ms(s[4])),
        el("td", { className: "num" }, ms(s[5])),
      ]);
    });
    stepBody.replaceChildren.apply(stepBody, rows);
    const last = data.first + data.steps.length - 1;
    pageNote.textContent = pages() > 1 ? "steps " + data.first + "–" + last + " of " + game.steps
      + " (page " + page + " of " + pages() + ")" : "";
    Array.prototype.forEach.call(stepBody.rows, function (row) {   // as viewer.js marks them
      const after = Number(row.dataset.step);
      row.classList.toggle("current", after === step);
      row.classList.toggle("future", after > step);
    });
  }

  /* --- one step ------------------------------------------------------------------------- */

  function linesBlock(title, lines, className) {
    return [el("h3", null, title), el("pre", { className: "lines " + className }, lines.join("\n"))];
  }

  function showStep(k, data) {
    const parts = [];
    if (k === 0) {
      parts.push(el("p", { className: "muted" }, game.steps ? "Before the first answer." : "No answer was given."));
      if (game.referee.errors.length) parts.push(el("ul", { className: "errors" }, errorItems(game.referee.errors)));
    } else {
      const s = data.steps[k - data.first];
      parts.push(el("div", { className: "big" }, ["Step " + k + ": "].concat(seatName(s[0]), [", its " + A.ordinal(s[1]) + " answer"])));
      if (s[2] === null) {
        const why = data.kept !== null && k >= data.kept
          ? "not published: the site keeps the lines given up to a size, here up to step " + (data.kept - 1)
            + ", and only the answers after it; `arena replay` prints the record"
          : "not kept: the record's transcript was capped";
        parts.push(el("h3", null, "Given"), el("p", { className: "muted given-none" }, why));
      } else {
        parts.push.apply(parts, linesBlock("Given (" + s[2].length + " line" + (s[2].length === 1 ? "" : "s") + ")", s[2], "given"));
      }
      parts.push.apply(parts, linesBlock("Answered in " + ms(s[4]) + " ms wall, " + ms(s[5]) + " ms cpu", s[3], "answered"));
      if (s[6].length) parts.push(el("ul", { className: "errors" }, errorItems(s[6])));
    }
    panel.replaceChildren.apply(panel, parts);
  }

  function draw(k) {
    step = k;
    describe();
    const page = pageOf(k);
    if (!game.steps) { showStep(0, null); return; }
    const asked = game;
    load(page).then(function (data) {
      if (game !== asked || step !== k) return;      // stepped on meanwhile
      if (page !== shownPage) {
        buildPage(page, data);
        const row = stepBody.querySelector('tr[data-step="' + k + '"]');
        if (row) {
          const wrap = row.closest(".movelist-wrap");
          wrap.scrollTop = Math.max(0, row.offsetTop - wrap.clientHeight / 2);
        }
      }
      showStep(k, data);
    }).catch(function (err) { A.showError(panel, err); });
  }

  function describe() {
    const now = document.getElementById("now");
    const parts = [el("div", { className: "big" }, step === 0 ? "Start" : "Step " + step + " of " + game.steps)];
    if (step === game.steps) parts.push(el("div", null, ["Game over. Ranking: "].concat(rankingNodes())));
    now.replaceChildren.apply(now, parts);
  }

  /* --- the frame: viewer.js ------------------------------------------------------------ */

  A.replayViewer({
    hashKey: "m",
    steps: function (g) { return g.steps; },
    stepAsked: function (g, params) { return params.m === undefined ? undefined : parseInt(params.m, 10) || 0; },
    marker: swatch,
    seatTag: function (seat) { return "seat " + seat; },
    build: function (data, g) {
      league = data;
      game = g;
      shownPage = 0;
      stepBody.replaceChildren();
      buildHeader();
    },
    draw: draw,
  });
})();
