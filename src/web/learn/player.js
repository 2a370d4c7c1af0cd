// The course player's one script: it starts the lecture video where the student stopped and
// saves the position as it plays (every 10 s, on pause and at the end) through the same form
// POST the page could send, with the page's CSRF token. Without it the video plays from the
// address's #t= fragment and Mark complete still works.
(() => {
  const video = document.querySelector('video[data-progress-url]');
  if (!video) return;
  const start = Number(video.dataset.start) || 0;
  const url = video.dataset.progressUrl;
  const token = video.dataset.csrf;
  if (start > 0) {
    const resume = () => {
      if (video.currentTime < 1) video.currentTime = start;
    };
    if (video.readyState >= 1) resume();
    else video.addEventListener('loadedmetadata', resume, { once: true });
  }
  let saved = start;
  const save = () => {
    const position = Math.floor(video.currentTime);
    if (!Number.isFinite(position) || position === saved) return;
    saved = position;
    const body = new URLSearchParams({ csrf_token: token, position: String(position) });
    fetch(url, { method: 'POST', body, credentials: 'same-origin', keepalive: true }).catch(() => {
      saved = -1; // try again next time
    });
  };
  setInterval(() => {
    if (!video.paused) save();
  }, 10000);
  video.addEventListener('pause', save);
  video.addEventListener('ended', save);
})();
