// Typeset the math that pymdownx.arithmatex (generic mode) leaves in .arithmatex elements: \( ... \) inline and
// \[ ... \] display. KaTeX is vendored (docs/assets/katex); nothing is fetched from the network. Material's
// instant navigation swaps page bodies without a reload, so typesetting follows its document$ observable when
// present. A formula KaTeX cannot parse is shown as a .katex-error element (the browser check fails on it).
(function () {
  function typeset(root) {
    root.querySelectorAll(".arithmatex").forEach(function (el) {
      renderMathInElement(el, {
        delimiters: [
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true },
        ],
        throwOnError: false,
      });
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(function () { typeset(document.body); });
  } else {
    document.addEventListener("DOMContentLoaded", function () { typeset(document.body); });
  }
})();
