// The backward pass, replayed: see overrides/partials/stepper.html.
(function () {
  function setUp(figure) {
    var list = figure.querySelector("ol.ag-steps");
    if (!list || figure.querySelector(".ag-stepper")) return;
    var steps = Array.prototype.slice.call(list.children);
    var svg = figure.querySelector("svg");
    var box = document.createElement("div");
    box.className = "ag-stepper";
    box.setAttribute("role", "group");
    box.setAttribute("aria-label", "The backward pass, step by step (arrow keys)");
    var previous = button("Previous");
    var next = button("Next");
    var text = document.createElement("p");
    text.className = "ag-step";
    text.setAttribute("aria-live", "polite");
    box.append(previous, next, text);
    list.before(box);
    figure.classList.add("ag-stepping");
    var at = -1;
    var lit = [];

    function show(index) {
      at = Math.max(0, Math.min(steps.length - 1, index));
      var step = steps[at];
      lit.forEach(function (e) { e.classList.remove("ag-current"); });
      lit = [];
      var node = step.getAttribute("data-node");
      if (node) lit = lit.concat(Array.prototype.slice.call(svg.querySelectorAll('[data-node="' + node + '"]')));
      (step.getAttribute("data-edges") || "").split(" ").forEach(function (edge) {
        var ends = edge.split(">");
        if (ends.length !== 2) return;
        var found = svg.querySelector('path[data-from="' + ends[0] + '"][data-to="' + ends[1] + '"]');
        if (found) lit.push(found);
      });
      lit.forEach(function (e) { e.classList.add("ag-current"); });
      steps.forEach(function (s, i) { s.toggleAttribute("aria-current", i === at); });
      text.textContent = "Step " + (at + 1) + " of " + steps.length + ": " + step.textContent;
      previous.disabled = at === 0;
      next.disabled = at === steps.length - 1;
    }

    function button(label) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "md-button ag-" + label.toLowerCase();
      b.textContent = label;
      b.addEventListener("click", function () { show(at + (label === "Next" ? 1 : -1)); });
      return b;
    }

    box.addEventListener("keydown", function (event) {
      var moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      show(at + moves[event.key]);
      // A disabled button loses the focus; keep it on the one that can still move.
      if (document.activeElement === document.body || document.activeElement.disabled) {
        (next.disabled ? previous : next).focus();
      }
    });
    show(0);
  }

  function setUpAll() {
    document.querySelectorAll("figure.autograd-graph").forEach(setUp);
  }

  document.addEventListener("DOMContentLoaded", function () {
    setUpAll();
    if (window.document$) window.document$.subscribe(setUpAll);
  });
})();
