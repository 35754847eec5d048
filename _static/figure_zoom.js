/* A figure shown narrower than it was drawn (always on a phone: its tick labels would be a few pixels tall) opens at
   full size, in a new tab, when clicked or tapped. Each figure image becomes a link to its own file. */
document.addEventListener("DOMContentLoaded", () => {
  document.querySelectorAll("article img[src*='_images/']").forEach((img) => {
    if (img.closest("a")) return;
    const link = document.createElement("a");
    link.href = img.getAttribute("src");
    link.target = "_blank";
    link.rel = "noopener";
    link.className = "figure-zoom";
    link.title = "Open the figure at full size";
    img.parentNode.insertBefore(link, img);
    link.appendChild(img);
  });
});
