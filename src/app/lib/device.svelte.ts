/**
 * What the device can do, for words that fit it: a phone has no drag-and-drop of files and no
 * "right-hand column" (the layout stacks below 820 px).
 */
function query(q: string): MediaQueryList | null {
  return typeof matchMedia === 'function' ? matchMedia(q) : null;
}

class Device {
  /** A mouse or trackpad: files can be dragged onto the window. */
  canDrop = $state(query('(pointer: fine)')?.matches ?? true);
  /** The layout is one column (forms sit below the results). */
  narrow = $state(query('(max-width: 820px)')?.matches ?? false);

  constructor() {
    query('(pointer: fine)')?.addEventListener('change', (e) => (this.canDrop = e.matches));
    query('(max-width: 820px)')?.addEventListener('change', (e) => (this.narrow = e.matches));
  }
}

export const device = new Device();
