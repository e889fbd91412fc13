// Python's indentation on a narrow screen: see overrides/partials/code-lines.html.
(function () {
  var SOURCE = ".highlight:has(> .filename) > pre > code, .nb-input > pre > code";
  var FITS = 28;
  var narrow = window.matchMedia("(max-width: 44.984375em)");

  function wraps(text) {
    var indent = text.length - text.replace(/^ +/, "").length;
    return indent > 0 && indent < text.length && text.length > FITS ? indent : 0;
  }

  function lines(code) {
    var result = [[]];
    for (var node = code.firstChild; node; node = node.nextSibling) {
      if (node.nodeType === 1 && node.childElementCount) return null;
      var parts = node.textContent.split("\n");
      parts.forEach(function (part, i) {
        if (i > 0) result.push([]);
        if (!part) return;
        var piece = node.nodeType === 3 ? document.createTextNode(part) : node.cloneNode(false);
        if (node.nodeType === 1) piece.textContent = part;
        result[result.length - 1].push(piece);
      });
    }
    return result;
  }

  function hang(code) {
    if (code.hasAttribute("data-lines")) return;
    code.setAttribute("data-lines", "");
    if (!code.textContent.split("\n").some(wraps)) return;
    var split = lines(code);
    if (split === null) return;
    var out = document.createDocumentFragment();
    split.forEach(function (pieces, i) {
      if (i > 0) out.appendChild(document.createTextNode("\n"));
      var text = pieces.map(function (p) { return p.textContent; }).join("");
      var indent = wraps(text);
      if (!indent) {
        pieces.forEach(function (p) { out.appendChild(p); });
        return;
      }
      var span = document.createElement("span");
      span.className = "hang";
      span.style.setProperty("--indent", indent);
      var spaces = document.createElement("span");
      spaces.className = "indent";
      spaces.textContent = text.slice(0, indent);
      span.appendChild(spaces);
      var rest = indent;  // the pieces' characters after the indentation
      pieces.forEach(function (p) {
        var skip = Math.min(rest, p.textContent.length);
        rest -= skip;
        if (skip === p.textContent.length) return;
        if (skip) p.textContent = p.textContent.slice(skip);
        span.appendChild(p);
      });
      out.appendChild(span);
    });
    code.replaceChildren(out);
  }

  function hangAll() {
    if (narrow.matches) document.querySelectorAll(SOURCE).forEach(hang);
  }

  hangAll();
  narrow.addEventListener("change", hangAll);
  // By then the theme's script has run: document$ brings each page instant navigation loads.
  document.addEventListener("DOMContentLoaded", function () {
    if (window.document$) window.document$.subscribe(hangAll);
  });
})();
