/**
 * The service worker's life as the app shows it. The worker precaches the app shell and the
 * bundled model, so the app runs offline after the first visit. A new version installs in the
 * background and then waits: `needRefresh` turns on, the banner offers Reload, and only then is
 * the waiting worker told to take over (vite-plugin-pwa's prompt flow over workbox-window); the
 * page reloads once it controls the page.
 */
import { registerSW } from 'virtual:pwa-register';
import { toasts } from './toasts.svelte.ts';

/** How often an open app asks the server whether a new version exists. */
const CHECK_EVERY_MS = 60 * 60 * 1000;

export class PwaState {
  /** A new version is installed and waiting for the person to reload. */
  needRefresh = $state(false);
  /** The app shell is cached: it will open with the network off. */
  offlineReady = $state(false);
  /** Reload was pressed: the new worker is taking over. */
  updating = $state(false);
  /** The banner was put off with "Later" (it comes back with the next version found). */
  dismissed = $state(false);

  private updateServiceWorker: ((reloadPage?: boolean) => Promise<void>) | null = null;
  private registration: ServiceWorkerRegistration | undefined;
  /** The waiting worker the person put off (the same version announced again keeps the banner down). */
  private putOff: ServiceWorker | null = null;

  get showBanner(): boolean {
    return this.needRefresh && !this.dismissed;
  }

  start(): void {
    if (typeof navigator === 'undefined' || !('serviceWorker' in navigator) || this.updateServiceWorker) return;
    this.updateServiceWorker = registerSW({
      immediate: true,
      onNeedRefresh: () => {
        this.needRefresh = true;
        // Announced again (a second check finding the same waiting worker): "Later" still holds.
        const waiting = this.registration?.waiting ?? null;
        if (waiting === null || waiting !== this.putOff) this.dismissed = false;
      },
      onOfflineReady: () => {
        this.offlineReady = true;
        toasts.push('Ready to work offline.');
      },
      onRegisteredSW: (_url, registration) => {
        this.registration = registration;
        if (!registration) return;
        setInterval(() => void this.check(), CHECK_EVERY_MS);
        window.addEventListener('online', () => void this.check());
      },
    });
  }

  /** Asks the server for a newer service worker now (it is also asked hourly and on reconnect). */
  async check(): Promise<void> {
    if (!this.registration || this.registration.installing || !navigator.onLine) return;
    try {
      await this.registration.update();
    } catch {
      /* offline or the server is away: the next check tries again */
    }
  }

  /** Lets the waiting version take over; the page reloads when it controls the page. */
  async reload(): Promise<void> {
    if (!this.updateServiceWorker || this.updating) return;
    this.updating = true;
    await this.updateServiceWorker(true);
  }

  later(): void {
    this.dismissed = true;
    this.putOff = this.registration?.waiting ?? null;
  }
}

export const pwa = new PwaState();
