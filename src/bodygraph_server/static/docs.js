// The /docs page: Swagger UI over this service's OpenAPI document. Served from the
// service (no CDN); validatorUrl null keeps Swagger UI from calling its online validator.
// A page asked in a language (<html lang>, from ?lang=) loads the document in it.
"use strict";
window.addEventListener("load", function () {
  const lang = document.documentElement.lang;
  window.ui = SwaggerUIBundle({
    url: lang && lang !== "en" ? "openapi.json?lang=" + encodeURIComponent(lang) : "openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
