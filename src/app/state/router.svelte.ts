/** Hash routing: #/search, #/browse, #/browse/<id>, #/review, #/activity, #/stats, #/agent. */

export const TABS = ['search', 'browse', 'review', 'activity', 'stats', 'agent'] as const;
export type Tab = (typeof TABS)[number];

function parse(hash: string): { tab: Tab; id: string | null } {
  const parts = hash.replace(/^#\/?/, '').split('/');
  const tab = (TABS as readonly string[]).includes(parts[0] ?? '') ? (parts[0] as Tab) : 'search';
  const id = tab === 'browse' && parts[1] ? decodeURIComponent(parts.slice(1).join('/')) : null;
  return { tab, id };
}

class Router {
  tab = $state<Tab>('search');
  /** The memory id in #/browse/<id>. */
  id = $state<string | null>(null);

  start(): () => void {
    const sync = () => {
      const route = parse(location.hash);
      this.tab = route.tab;
      this.id = route.id;
    };
    sync();
    window.addEventListener('hashchange', sync);
    return () => window.removeEventListener('hashchange', sync);
  }

  go(tab: Tab, id: string | null = null): void {
    const hash = `#/${tab}${id ? `/${encodeURIComponent(id)}` : ''}`;
    if (location.hash !== hash) location.hash = hash;
    this.tab = tab;
    this.id = id;
  }
}

export const router = new Router();
