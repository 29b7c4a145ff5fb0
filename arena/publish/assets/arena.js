/* bot-arena static site: shared helpers (data loading, DOM building, the league's names as
 * text, pagers and step buttons, sortable tables, chart legend).
 *
 * Data files are scripts that call arenaData(key, value): a page loads one by adding a
 * <script src>, which works from file:// (where fetch() of local JSON is refused) and
 * from any static host. Text from the league (bot names, reasons, stderr) only ever
 * goes into the page as textContent, never as HTML.
 */
(function () {
  "use strict";

  const root = document.body.dataset.root || "";
  const cache = Object.create(null);
  const pending = Object.create(null);

  window.arenaData = function (key, value) {
    cache[key] = value;
  };

  /** Load data/KEY.js once; resolves with the value it hands over. */
  function loadData(key) {
    if (key in cache) return Promise.resolve(cache[key]);
    if (pending[key]) return pending[key];
    pending[key] = new Promise(function (resolve, reject) {
      const script = document.createElement("script");
      script.src = root + "data/" + key + ".js";
      script.onload = function () {
        delete pending[key];
        if (key in cache) resolve(cache[key]);
        else reject(new Error("data/" + key + ".js did not hand over its data"));
      };
      script.onerror = function () {
        delete pending[key];
        script.remove();
        reject(new Error("cannot load data/" + key + ".js"));
      };
      document.head.appendChild(script);
    });
    return pending[key];
  }

  /** An element with properties, attributes (attrs) and children (strings become text). */
  function el(tag, props, children) {
    const node = document.createElement(tag);
    if (props) {
      for (const name of Object.keys(props)) {
        const value = props[name];
        if (value === undefined || value === null) continue;
        if (name === "attrs") {
          for (const a of Object.keys(value)) node.setAttribute(a, value[a]);
        } else if (name === "dataset") {
          Object.assign(node.dataset, value);
        } else {
          node[name] = value;
        }
      }
    }
    for (const child of [].concat(children === undefined ? [] : children)) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  /** The location hash as key/value pairs: #g=12&m=3 -> {g: "12", m: "3"}. */
  function hashParams() {
    const out = {};
    new URLSearchParams(location.hash.replace(/^#/, "")).forEach(function (v, k) { out[k] = v; });
    return out;
  }

  /** Replace the hash without adding a history entry (keeps Back meaningful). */
  function setHash(params) {
    const text = new URLSearchParams(params).toString();
    try {
      history.replaceState(null, "", "#" + text);
    } catch (err) {
      location.hash = text;
    }
  }

  function showError(node, err) {
    node.textContent = String(err && err.message ? err.message : err);
    node.classList.add("error");
    node.hidden = false;
  }

  /* --- the league's data as text (data/league.js) ---------------------------------------- */

  /** A bot's name: ref is its id in league.bots, or a name the data kept as it was. */
  function botName(league, ref) {
    return typeof ref === "number" ? league.bots[ref].name : String(ref);
  }

  /** A link to a bot's page (its name as text when ref is not one of the league's bots). */
  function botLink(league, ref) {
    if (typeof ref !== "number") return String(ref);
    const bot = league.bots[ref];
    return el("a", { href: root + "bots/" + bot.slug + ".html" }, bot.name);
  }

  /** How the site words a termination (timeout, crash, ...). */
  function terminationLabel(league, termination) {
    return league.terminations[termination] || termination;
  }

  /** 1st, 2nd, 3rd, 4th, ... 11th, 12th, 13th, ... 21st. */
  function ordinal(n) {
    const tens = n % 100, ones = n % 10;
    const suffix = tens >= 11 && tens <= 13 ? "th" : ones === 1 ? "st" : ones === 2 ? "nd" : ones === 3 ? "rd" : "th";
    return n + suffix;
  }

  /** A time in ms to a tenth, or – when it was not measured. */
  function ms(value) { return value === null || value === undefined ? "–" : value.toFixed(1); }

  /* --- pagers and step buttons: data-go first, prev, next, last --------------------------- */

  /** Where a data-go button leads from position at, in lo..hi. */
  function stepTo(go, at, lo, hi) {
    return { first: lo, prev: at - 1, next: at + 1, last: hi }[go];
  }

  /** Disable the data-go buttons in nav that lead nowhere from position at, in lo..hi. */
  function setSteps(nav, at, lo, hi) {
    for (const button of nav.querySelectorAll("button[data-go]")) {
      const back = button.dataset.go === "first" || button.dataset.go === "prev";
      button.disabled = back ? at <= lo : at >= hi;
    }
  }

  /** A pager (nav.pager) at page of pages: its "page 2 of 5" and its buttons. */
  function showPage(nav, page, pages) {
    nav.querySelector(".where").textContent = "page " + page + " of " + pages;
    setSteps(nav, page, 1, pages);
  }

  /* --- sortable tables: click a heading; again to reverse --------------------------------- */

  function sortBy(table, th) {
    const index = Array.prototype.indexOf.call(th.parentNode.children, th);
    const numeric = th.dataset.type === "num";
    const current = th.getAttribute("aria-sort");
    const first = th.dataset.first || (numeric ? "descending" : "ascending");
    const dir = current ? (current === "ascending" ? "descending" : "ascending") : first;
    const sign = dir === "ascending" ? 1 : -1;
    const body = table.tBodies[0];
    const rows = Array.prototype.map.call(body.rows, function (row, i) {
      const cell = row.cells[index];
      const raw = cell ? (cell.dataset.v !== undefined ? cell.dataset.v : cell.textContent) : "";
      return { row: row, i: i, key: numeric ? parseFloat(raw) : raw };
    });
    rows.sort(function (a, b) {
      let c;
      if (numeric) {
        const x = isNaN(a.key) ? -Infinity : a.key;
        const y = isNaN(b.key) ? -Infinity : b.key;
        c = x - y;
      } else {
        c = a.key.localeCompare(b.key, undefined, { numeric: true, sensitivity: "base" });
      }
      return c * sign || a.i - b.i;
    });
    for (const h of th.parentNode.children) h.removeAttribute("aria-sort");
    th.setAttribute("aria-sort", dir);
    body.append.apply(body, rows.map(function (r) { return r.row; }));
  }

  function makeSortable(table) {
    for (const th of table.tHead.rows[0].cells) {
      const button = th.querySelector("button");
      if (button) button.addEventListener("click", function () { sortBy(table, th); });
    }
  }

  /* --- rating history: pick bots out of the crowd ----------------------------------------- */

  function historyLegend(wrap) {
    const svg = wrap.querySelector("svg.chart");
    const buttons = wrap.querySelectorAll("ol.legend button");
    const chosen = new Set();
    function draw() {
      svg.classList.toggle("has-focus", chosen.size > 0);
      for (const g of svg.querySelectorAll("g.series")) {
        const on = chosen.has(g.dataset.bot);
        g.classList.toggle("focus", on);
        if (on) g.parentNode.appendChild(g);          // draw picked bots on top
      }
      for (const b of buttons) b.setAttribute("aria-pressed", String(chosen.has(b.dataset.bot)));
    }
    for (const b of buttons) {
      b.addEventListener("click", function () {
        if (chosen.has(b.dataset.bot)) chosen.delete(b.dataset.bot);
        else chosen.add(b.dataset.bot);
        draw();
      });
    }
    const all = document.getElementById("all-bands");
    if (all) {
      all.addEventListener("click", function () {
        const on = svg.classList.toggle("show-bands");
        all.textContent = on ? "Hide the bands" : "Show every band";
      });
    }
    const clear = document.getElementById("clear-focus");
    if (clear) clear.addEventListener("click", function () { chosen.clear(); draw(); });
  }

  document.querySelectorAll("table.sortable").forEach(makeSortable);
  const chart = document.getElementById("history");
  if (chart) historyLegend(chart);

  window.Arena = { root: root, loadData: loadData, el: el, hashParams: hashParams,
                   setHash: setHash, showError: showError, botName: botName, botLink: botLink,
                   terminationLabel: terminationLabel, ordinal: ordinal, ms: ms,
                   stepTo: stepTo, setSteps: setSteps, showPage: showPage };
})();
