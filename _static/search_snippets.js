/* Search result snippets are cut from each page's text, where MathJax has not run: "\(d^{0.49}\)" showed as raw
   TeX. Each inline or display formula in a snippet is turned into plain text ("d^0.49", "√d·T") before Sphinx's
   search shows it. Loaded on every page; it acts only where Sphinx's search is. */
(function () {
  const SYMBOLS = {
    alpha: "α", beta: "β", gamma: "γ", delta: "δ", Delta: "Δ", epsilon: "ε", varepsilon: "ε", eta: "η",
    theta: "θ", lambda: "λ", mu: "μ", sigma: "σ", tau: "τ", phi: "φ", Phi: "Φ", omega: "ω", ell: "ℓ",
    cdot: "·", times: "×", leq: "≤", le: "≤", geq: "≥", ge: "≥", approx: "≈", propto: "∝", in: "∈", infty: "∞",
    to: "→", rightarrow: "→", sim: "~", pm: "±", neq: "≠", sum: "Σ", partial: "∂", nabla: "∇", langle: "⟨",
    rangle: "⟩", ldots: "…", dots: "…", top: "ᵀ",
  };
  function plain(tex) {
    let s = tex;
    s = s.replace(/\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}/g, "($1)/($2)");
    s = s.replace(/\\sqrt\s*\{([^{}]*)\}/g, "√($1)").replace(/\\sqrt\s*/g, "√");
    s = s.replace(/\\(?:mathrm|text|mathbf|mathcal|operatorname|boldsymbol|tilde|hat|bar)\s*\{([^{}]*)\}/g, "$1");
    s = s.replace(/\\(?:left|right|big|Big|displaystyle)\b/g, "");
    s = s.replace(/\\[,;!: ]/g, " ");
    s = s.replace(/\\([A-Za-z]+)/g, (m, name) => (name in SYMBOLS ? SYMBOLS[name] : name));
    s = s.replace(/[{}]/g, "");
    return s.replace(/\s+/g, " ").trim();
  }
  function untex(text) {
    return text
      .replace(/\\\(([\s\S]*?)\\\)/g, (m, t) => plain(t))
      .replace(/\\\[([\s\S]*?)\\\]/g, (m, t) => plain(t))
      .replace(/\$\$([\s\S]*?)\$\$/g, (m, t) => plain(t));
  }
  window.emergenceUntex = untex;  // for the book's browser test
  document.addEventListener("DOMContentLoaded", () => {
    if (typeof Search === "undefined" || typeof Search.htmlToText !== "function") return;
    const original = Search.htmlToText;
    Search.htmlToText = (htmlString, anchor) => untex(original(htmlString, anchor));
  });
})();
