// The embedding demo: list every event the framed workflow posts, from the service's origin.
const origin = JSON.parse(document.getElementById("wf-demo-origin").textContent);
const list = document.getElementById("wf-demo-events");
window.__events = [];
window.addEventListener("message", (event) => {
  if (event.origin !== origin) return;
  window.__events.push(event.data);
  const item = document.createElement("li");
  item.textContent = JSON.stringify(event.data);
  list.append(item);
});
