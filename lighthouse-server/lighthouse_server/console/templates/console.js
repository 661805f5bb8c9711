// The console's one script, served from /console/console.js (the page's CSP allows no inline script).
// Every time shows the visitor's own zone on hover; the review page is driven by keys.
"use strict";

const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;
const PAGE_TIME = /\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ/g;

// "2026-01-31 12:00:00Z", the one format of the pages, in the visitor's zone (null if it is no time).
function local(text) {
  const moment = new Date(text.replace(" ", "T"));
  return isNaN(moment) ? null : moment.toLocaleString() + " (" + ZONE + ")";
}

function localTimes() {
  for (const element of document.querySelectorAll("time")) {
    const shown = local(element.textContent);
    if (shown) {
      element.title = shown;
    }
  }
  // The long tables mark their cells of times with class "when" instead of a <time> for each: their
  // titles are made when the pointer first comes over them.
  document.addEventListener("mouseover", (event) => {
    const cell = event.target instanceof Element ? event.target.closest(".when") : null;
    if (cell && !cell.title) {
      const times = (cell.textContent.match(PAGE_TIME) || []).map(local).filter(Boolean);
      cell.title = times.join(" → ");
    }
  });
}

function reviewKeys() {
  const table = document.getElementById("candidates");
  if (!table) {
    return;
  }
  const rows = Array.from(table.querySelectorAll("tr.candidate"));
  const form = document.getElementById("review-form");
  const at = form ? form.querySelector("input[name=at]") : null;
  let current = Math.min(Number(table.dataset.current || 0), rows.length - 1);

  function select(place) {
    if (place < 0 || place >= rows.length) {
      return;
    }
    rows[current].classList.remove("current");
    current = place;
    rows[current].classList.add("current");
    rows[current].scrollIntoView({ block: "nearest" });
    if (at) {
      at.value = String(current);
    }
  }

  function press(selector) {
    const button = rows[current].querySelector(selector);
    if (button) {
      button.click();
    }
  }

  for (const [place, row] of rows.entries()) {
    const reason = row.querySelector("input[aria-label=reason]");
    if (reason) {
      reason.addEventListener("focus", () => select(place));
      reason.addEventListener("keydown", (event) => {
        if (event.key === "Enter") {
          event.preventDefault();
          if (reason.value.trim()) {
            press("button.reject");
          }
        } else if (event.key === "Escape") {
          reason.blur();
        }
      });
    }
  }

  document.addEventListener("keydown", (event) => {
    const typing = event.target instanceof HTMLInputElement && event.target.type !== "checkbox";
    if (typing || event.ctrlKey || event.metaKey || event.altKey || rows.length === 0) {
      return;
    }
    if (event.key === "j") {
      select(current + 1);
    } else if (event.key === "k") {
      select(current - 1);
    } else if (event.key === "c") {
      press("button.confirm");
    } else if (event.key === "r") {
      event.preventDefault();
      const reason = rows[current].querySelector("input[aria-label=reason]");
      if (reason) {
        reason.focus();
      }
    } else if (event.key === "x") {
      const pick = rows[current].querySelector("input[name=pick]");
      if (pick) {
        pick.checked = !pick.checked;
      }
    } else {
      return;
    }
    event.preventDefault();
  });
}

document.addEventListener("DOMContentLoaded", () => {
  localTimes();
  reviewKeys();
});
