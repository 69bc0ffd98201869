import { fileSafe, localDate } from './format.ts';

/** The name an export of `store` gets today: `<store>-<date>.ahkai`. */
export function archiveFileName(store: string): string {
  return `${fileSafe(store)}-${localDate()}.ahkai`;
}

/** Saves `blob` through the browser's download flow as `name`. */
export function downloadBlob(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.rel = 'noopener';
  a.style.display = 'none';
  document.body.append(a);
  a.click();
  a.remove();
  // The download has its own copy once it starts; give it a moment before releasing the URL.
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
