/** The gzip engine on fflate's streaming `Gunzip` (which follows concatenated members) and `Gzip`. */
import { Gunzip, Gzip } from 'fflate';
import { installGzipEngine, type GzipEngine } from '../core/archive/gzip-engine.ts';

export const fflateGzip: GzipEngine = {
  inflater(onData, onMember) {
    const inflater = new Gunzip((data) => onData(data));
    inflater.onmember = onMember;
    return { push: (chunk, final) => inflater.push(chunk, final) };
  },
  deflater(level, onData) {
    const deflater = new Gzip({ level: level as 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9, mtime: 0 }, (data) => onData(data));
    return { push: (chunk, final) => deflater.push(chunk, final) };
  },
};

/** Installs fflate as the archive code's gzip engine. */
export function useFflateGzip(): void {
  installGzipEngine(fflateGzip);
}
