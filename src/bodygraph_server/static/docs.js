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
      const say = function (node) {
        if (typeof node === "string") {
          const word = node.trim();
          return Object.prototype.hasOwnProperty.call(said, word)
            ? node.replace(word, said[word]) : node;
        }
        if (Array.isArray(node)) return node.map(say);
        if (!React.isValidElement(node) || typeof node.type !== "string"
            || node.props.children === undefined) {
          return node;  // a component draws its own children (wrapped if named)
        }
        const children = node.props.children;
        return React.cloneElement.apply(null, [node, undefined].concat(
          Array.isArray(children) ? children.map(say) : [say(children)]));
      };
      wrapComponents[name] = function (Original) {
        if (!(Original.prototype && Original.prototype.isReactComponent)) return Original;
        return class extends Original {
          render() { return say(super.render()); }
        };
      };
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
