// The /docs page: Swagger UI over this service's OpenAPI document. Served from the
// service (no CDN); validatorUrl null keeps Swagger UI from calling its online validator.
// A page asked in a language (<html lang>, from ?lang=) loads the document in it, and a
// plugin says Swagger UI's own words in it: each component named in the page's
// data-words is wrapped (Swagger UI's plugin API, wrapComponents) by a subclass whose
// render gives the same elements with those words replaced (docs/languages.md).
"use strict";

function translating(words) {
  return function (system) {
    const React = system.React;
    const wrapComponents = {};
    Object.keys(words).forEach(function (name) {
      const said = words[name];
      const subclasses = new Map();
      // The elements a render gives, with the words of the text they hold replaced; a
      // component among them draws its own (and is wrapped if it is named).
      const say = function (node) {
        if (typeof node === "string") {
          const word = node.trim();
          return Object.prototype.hasOwnProperty.call(said, word)
            ? node.replace(word, said[word]) : node;
        }
        if (Array.isArray(node)) return node.map(say);
        if (!React.isValidElement(node) || typeof node.type !== "string"
            || node.props.children === undefined) {
          return node;
        }
        const children = node.props.children;
        return React.cloneElement.apply(null, [node, undefined].concat(
          Array.isArray(children) ? children.map(say) : [say(children)]));
      };
      // A class component whose render says the words (others are kept as they are).
      const speaking = function (Type) {
        if (!(Type.prototype && Type.prototype.isReactComponent)) return Type;
        if (!subclasses.has(Type)) {
          subclasses.set(Type, class extends Type {
            render() { return look(super.render()); }
          });
        }
        return subclasses.get(Type);
      };
      // Swagger UI draws some components inside an error boundary (its render gives the
      // boundary holding the component): the component inside speaks.
      const look = function (node) {
        if (!React.isValidElement(node) || typeof node.type === "string") return say(node);
        const inner = node.props.children;
        if (!React.isValidElement(inner) || typeof inner.type === "string") return node;
        return React.cloneElement(node, undefined, React.createElement(
          speaking(inner.type), Object.assign({}, inner.props, { key: inner.key, ref: inner.ref })));
      };
      wrapComponents[name] = speaking;
    });
    return { wrapComponents: wrapComponents };
  };
}

window.addEventListener("load", function () {
  const lang = document.documentElement.lang;
  const words = JSON.parse(document.getElementById("swagger-ui").dataset.words || "{}");
  window.ui = SwaggerUIBundle({
    url: lang && lang !== "en" ? "openapi.json?lang=" + encodeURIComponent(lang) : "openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    plugins: [translating(words)],
    layout: "BaseLayout",
  });
});
