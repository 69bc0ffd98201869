/** Short-lived messages at the bottom of the window, optionally with one action (Undo). */

export interface ToastAction {
  label: string;
  run: () => void | Promise<void>;
}

export interface Toast {
  id: number;
  message: string;
  action?: ToastAction;
  /** 'notice': something to look at that is not a failure (a memory kept that changes or repeats another). */
  tone: 'info' | 'notice' | 'error';
  /** The tab the toast points at: it leaves once the person is there. */
  route?: string;
}

export interface ToastOptions {
  action?: ToastAction;
  /** Milliseconds before it goes away; default 3500 (8000 with an action). */
  timeout?: number;
  tone?: Toast['tone'];
  route?: string;
}

class ToastState {
  items = $state<Toast[]>([]);
  private nextId = 1;
  private timers = new Map<number, ReturnType<typeof setTimeout>>();

  push(message: string, options: ToastOptions = {}): number {
    // The same message again replaces the earlier one instead of stacking up.
    for (const t of this.items) if (t.message === message && !t.action) this.dismiss(t.id);
    const id = this.nextId++;
    const toast: Toast = { id, message, tone: options.tone ?? 'info', ...(options.action ? { action: options.action } : {}), ...(options.route ? { route: options.route } : {}) };
    // One at a time: a stack of toasts covers what the person is working on.
    for (const old of this.items) this.dismiss(old.id);
    this.items = [...this.items, toast];
    const timeout = options.timeout ?? (options.action ? 8000 : 3500);
    this.timers.set(id, setTimeout(() => this.dismiss(id), timeout));
    return id;
  }

  dismiss(id: number): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
    this.items = this.items.filter((t) => t.id !== id);
  }

  /** The person is on `tab`: toasts that pointed there have done their job. */
  arrived(tab: string): void {
    for (const t of this.items) if (t.route === tab) this.dismiss(t.id);
  }

  async act(id: number): Promise<void> {
    const toast = this.items.find((t) => t.id === id);
    this.dismiss(id);
    await toast?.action?.run();
  }
}

export const toasts = new ToastState();
