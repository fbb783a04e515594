import * as assert from "node:assert/strict";
import { decodeDataUrl, encodeDataUrl, machineConfig } from ".";

/** Decodes with Node's own WHATWG data: URL support, independent of decodeDataUrl. */
async function fetchBytes(url: string): Promise<Buffer> {
  return Buffer.from(await (await fetch(url)).arrayBuffer());
}

function decodedBytes(url: string): Buffer {
  const decoded = decodeDataUrl(url);
  if ("error" in decoded) throw new Error(`${url}: ${decoded.error}`);
  return decoded.data;
}

const SAMPLES: Record<string, string | Buffer> = {
  empty: "",
  "plain ASCII with a newline": "hello world\n",
  "percent, hash, question mark, plus, ampersand": "100% # not a fragment? a+b&c=d /x:y;z,\n",
  "Japanese text": "マシン設定プール: ワーカー\nノード\n",
  "emoji and accents": "café 🚀 naïve\r\n\ttab",
  "a whole config file": "[Unit]\nDescription=Chrony\n\n[Service]\nExecStart=/usr/sbin/chronyd -n\n",
  "every byte value": Buffer.from(Array.from({ length: 256 }, (_, i) => i)),
  "NUL and high bytes": Buffer.from([0, 0xff, 0xfe, 0x80, 0x25, 0x23]),
};

describe("data: URL encoding", () => {
  for (const [name, contents] of Object.entries(SAMPLES)) {
    it(`round-trips ${name}`, async () => {
      const bytes = typeof contents === "string" ? Buffer.from(contents, "utf8") : contents;
      const url = encodeDataUrl(contents);
      assert.deepEqual(decodedBytes(url), bytes);
      assert.deepEqual(await fetchBytes(url), bytes);
      assert.match(url, /^data:(,|;base64,)[\x21-\x7e]*$/, "only printable ASCII, nothing left to escape");
    });
  }

  it("keeps text readable, escaping as butane does (RFC 2396 unreserved characters stay)", () => {
    assert.equal(encodeDataUrl(""), "data:,");
    assert.equal(encodeDataUrl("hello world\n"), "data:,hello%20world%0A");
    assert.equal(encodeDataUrl("a-b_c.d!e~f*g'h(i)j"), "data:,a-b_c.d!e~f*g'h(i)j");
    assert.equal(encodeDataUrl("50% #1"), "data:,50%25%20%231");
    // The beginning of the MCO's own kubelet.conf, as seed 003 shows it.
    assert.equal(encodeDataUrl("kind: KubeletConfiguration\n"), "data:,kind%3A%20KubeletConfiguration%0A");
  });

  it("switches to base64 when that is shorter, and keeps the percent form on a tie", () => {
    assert.equal(encodeDataUrl("日本語"), "data:;base64,5pel5pys6Kqe");
    assert.equal(encodeDataUrl(Buffer.from([0, 1, 2, 3])), "data:,%00%01%02%03");
    assert.equal(encodeDataUrl(Buffer.from([0, 1, 2, 3, 4, 5, 6, 7])), "data:;base64,AAECAwQFBgc=");
    // 9 bytes, 5 of them escaped: 6 + 4 + 15 = 25 characters either way.
    assert.equal(encodeDataUrl("abcd     "), "data:,abcd%20%20%20%20%20");
    assert.equal("data:;base64,YWJjZCAgICAg".length, 25);
  });

  it("gives the same URL for the same bytes whether written as text or base64", () => {
    const text = "net.ipv4.ip_forward = 1\n";
    const [a, b] = machineConfig({
      name: "99-sysctl",
      role: "worker",
      files: [
        { path: "/etc/sysctl.d/a.conf", contents: { text } },
        { path: "/etc/sysctl.d/b.conf", contents: { base64: Buffer.from(text).toString("base64") } },
      ],
    }).spec.config.storage!.files;
    assert.equal(a.contents.source, b.contents.source);
  });

  it("decodes media types and explains malformed URLs", () => {
    assert.deepEqual(decodeDataUrl("data:text/plain;charset=utf-8;base64,aGk="), {
      mediaType: "text/plain;charset=utf-8",
      data: Buffer.from("hi"),
    });
    for (const bad of [
      "http://example.com/x",
      "data:hello",
      "data:,a b",
      "data:,100%",
      "data:;base64,a*b=",
    ]) {
      assert.ok("error" in decodeDataUrl(bad), bad);
    }
  });
});
