// HTML escaping for the viewer's pages, apart from pages.ts so that the unit sections (which the run kinds use) need
// nothing of the page frames, which ask the run-kind registry.

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
