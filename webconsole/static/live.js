// Parley console: the overview's figures kept live by server-sent events
// (/events). Without JavaScript the page shows them as they were when it
// loaded.
(() => {
  const live = document.querySelectorAll("[data-live]");
  if (live.length === 0 || !window.EventSource) {
    return;
  }
  const events = new EventSource("/events");
  events.addEventListener("load", (e) => {
    const figures = JSON.parse(e.data);
    for (const el of live) {
      const name = el.dataset.live;
      if (name in figures) {
        el.textContent = String(figures[name]);
      }
    }
  });
})();
