// The language menu of the pages (/, /playground): choosing a language loads the page in
// it (the menu is a GET form of lang; without JavaScript its OK button does the same).
"use strict";
(function () {
  const menu = document.getElementById("lang");
  if (menu) {
    menu.addEventListener("change", () => document.getElementById("lang-form").submit());
  }
})();
