import { createDecipheriv, type KeyObject } from "node:crypto";

/** AES-256-CBC with PKCS7 padding (spec 4.6); undefined when the padding does not check out. */
export function decrypt(key: KeyObject, iv: Buffer, ciphertext: Buffer): Buffer | undefined {
  try {
    const decipher = createDecipheriv("aes-256-cbc", key, iv);
    const head = decipher.update(ciphertext);
    const tail = decipher.final();
    return tail.length === 0 ? head : Buffer.concat([head, tail]);
  } catch {
    return undefined;
  }
}
