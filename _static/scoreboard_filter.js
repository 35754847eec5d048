/* The scoreboard's filters (chapters/scoreboard): under its summary, buttons by verdict, a chapter menu and a text
 * box that show only the rows of the full table of claims that match, opening its dropdown and saying how many rows
 * are shown. Acts only on a page that holds #scoreboard-filter; the table is the one inside the dropdown whose title
 * starts "Every claim the book judges". Without JavaScript the bar stays empty and the table is whole. */
(function () {
  "use strict";
  // A row's verdict is the mark its status cells print (claims.MARK), in either scale's column: a row judged at both
  // scales is shown under each of its two verdicts.
  const VERDICTS = [["all", "All"], ["reproduced", "✓ reproduced"], ["agrees", "✓ agrees"], ["differs", "△ differs"],
                    ["inconclusive", "? inconclusive"], ["not run", "○ not run"]];

  function fullTable() {
    for (const d of document.querySelectorAll("details")) {
      const summary = d.querySelector("summary");
      if (summary && summary.textContent.trim().startsWith("Every claim the book judges")) {
        const table = d.querySelector("table");
        if (table) return [d, table];
      }
    }
    return [null, null];
  }

  function cellText(row, name, header) {
    const i = header.indexOf(name);
    return i >= 0 && row.cells[i] ? row.cells[i].textContent : "";
  }

  function setUp() {
    const bar = document.getElementById("scoreboard-filter");
    if (!bar) return;
    const [details, table] = fullTable();
    if (!table) return;
    const header = Array.from(table.querySelectorAll("thead th")).map((th) => th.textContent.trim());
    const rows = Array.from(table.querySelectorAll("tbody tr"));
    const statusOf = (row) => (cellText(row, "Status", header) + " " + cellText(row, "Ours, paper scale", header)).toLowerCase();
    const chapterOf = (row) => cellText(row, "Chapter", header).trim();
    const state = { verdict: "all", chapter: "", text: "" };

    const label = document.createElement("span");
    label.className = "scoreboard-filter-label";
    label.textContent = "Show the claims that ";
    bar.appendChild(label);
    const buttons = {};
    for (const [key, text] of VERDICTS) {
      const n = key === "all" ? rows.length : rows.filter((r) => statusOf(r).includes(key)).length;
      if (key !== "all" && n === 0) continue;
      const b = document.createElement("button");
      b.type = "button";
      b.className = "scoreboard-filter-button";
      b.dataset.verdict = key;
      b.textContent = `${text} (${n})`;
      b.addEventListener("click", () => { state.verdict = key; apply(); });
      bar.appendChild(b);
      buttons[key] = b;
    }
    const chapters = Array.from(new Set(rows.map(chapterOf).filter((c) => c && c !== "—"))).sort();
    const select = document.createElement("select");
    select.className = "scoreboard-filter-chapter";
    select.setAttribute("aria-label", "chapter");
    for (const c of [""].concat(chapters)) {
      const o = document.createElement("option");
      o.value = c;
      o.textContent = c || "every chapter";
      select.appendChild(o);
    }
    select.addEventListener("change", () => { state.chapter = select.value; apply(); });
    bar.appendChild(select);
    const box = document.createElement("input");
    box.type = "search";
    box.className = "scoreboard-filter-text";
    box.placeholder = "words in the claim";
    box.setAttribute("aria-label", "words in the claim");
    box.addEventListener("input", () => { state.text = box.value.trim().toLowerCase(); apply(); });
    bar.appendChild(box);
    const count = document.createElement("p");
    count.className = "scoreboard-filter-count";
    bar.appendChild(count);

    function apply() {
      let shown = 0;
      for (const r of rows) {
        const ok = (state.verdict === "all" || statusOf(r).includes(state.verdict)) &&
          (!state.chapter || chapterOf(r) === state.chapter) &&
          (!state.text || r.textContent.toLowerCase().includes(state.text));
        r.style.display = ok ? "" : "none";
        shown += ok ? 1 : 0;
      }
      for (const k in buttons) buttons[k].setAttribute("aria-pressed", String(k === state.verdict));
      const filtered = state.verdict !== "all" || state.chapter || state.text;
      count.textContent = filtered ? `${shown} of ${rows.length} claims shown, in the table below (opened).` : "";
      if (filtered && details) details.open = true;
    }
    apply();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
  else setUp();
})();
