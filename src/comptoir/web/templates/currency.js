(function () {
  var country = document.getElementById("country");
  var currency = document.getElementById("currency");
  if (!country || !currency) { return; }
  var chosen = false;
  currency.addEventListener("change", function () { chosen = true; });
  country.addEventListener("change", function () {
    var option = country.options[country.selectedIndex];
    if (!chosen && option) { currency.value = option.getAttribute("data-currency") || ""; }
  });
})();
