import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How the egress proxy words its answers: raw HTTP replies on a tunnel socket, error codes and sizes as plain text. */

export const GiB = 1024 ** 3;

export const plainText = (text: string): string => text.replace(/[^\x20-\x7e]/g, '?');

/** A raw HTTP/1.1 response on a socket that left the HTTP server (CONNECT), which then closes. */
export function rawResponse(socket: Duplex, status: string, body: string): void {
  const text = `${plainText(body)}\n`;
  socket.end(
    `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
  // A client that never closes its side does not keep the connection (and its slot) open.
  // cast: node:http's CONNECT and upgrade sockets are net.Sockets, typed as Duplex
  (socket as Socket).setTimeout(5000, () => socket.destroy());
}

export const errorCode = (err: unknown): string =>
  err instanceof Error ? plainText((err as NodeJS.ErrnoException).code ?? err.message).slice(0, 80) : 'error';

export const sizeText = (bytes: number): string =>
  bytes >= GiB && bytes % GiB === 0
    ? `${bytes / GiB} GiB`
    : bytes >= 1024 * 1024
      ? `${Math.round(bytes / 1024 / 1024)} MiB`
      : `${bytes} bytes`;
