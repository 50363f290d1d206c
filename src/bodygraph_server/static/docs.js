// The /docs page: Swagger UI over this service's OpenAPI document. Served from the
// service (no CDN); validatorUrl null keeps Swagger UI from calling its online validator.
"use strict";
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: "openapi.json",
    dom_id: "#swagger-ui",
    validatorUrl: null,
    deepLinking: true,
    defaultModelsExpandDepth: 0,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
