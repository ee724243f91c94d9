import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { knownFormats, matchesFormat } from "../../src/addon-operator/formats.js";

// Values each Go parser behind strfmt.Default accepts and refuses (strfmt v0.26.2).
const table: Record<string, [accepted: string[], refused: string[]]> = {
  uri: [
    ["http://example.com/a?b#c", "mailto:x@y", "/absolute/path", "*"],
    ["relative/path", "http://ex ample.com", "%zz", ""],
  ],
  email: [
    ["a@b.c", "John <john@example.com>", "x.y+z@d"],
    ["no-at", "a@", "@b", "a b@c"],
  ],
  hostname: [
    ["example.com", "a", "xn--bcher-kva.example", "1.2.3.4", "bücher.de"],
    ["-a.com", "a..b", "a.b.c.d", "a_b.com", "1.2.3.256"],
  ],
  ipv4: [
    ["1.2.3.4", "::ffff:1.2.3.4"],
    ["01.2.3.4", "1.2.3", "::1"],
  ],
  ipv6: [
    ["::1", "2001:db8::1"],
    ["1.2.3.4", "fe80::1%eth0"],
  ],
  cidr: [
    ["10.0.0.0/8", "2001:db8::/32", "10.0.0.0/08"],
    ["10.0.0.0/33", "10.0.0.0", "10.0.0.0/x"],
  ],
  mac: [
    ["00:00:5e:00:53:01", "00-00-5e-00-53-01", "0000.5e00.5301", "00:00:5e:00:53:01:02:03"],
    ["00:00:5e", "00:00:5e:00:53:0g"],
  ],
  uuid: [
    [
      "6ba7b810-9dad-11d1-80b4-00c04fd430c8",
      "6ba7b8109dad11d180b400c04fd430c8",
      "{6ba7b810-9dad-11d1-80b4-00c04fd430c8}",
      "urn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    ],
    ["6ba7b810-9dad-11d1-80b4", "x"],
  ],
  uuid3: [["6ba7b810-9dad-31d1-80b4-00c04fd430c8"], ["6ba7b810-9dad-41d1-80b4-00c04fd430c8"]],
  uuid4: [["0b1c2b60-1a4b-4d3e-8f5a-1c2d3e4f5a6b"], ["0b1c2b60-1a4b-1d3e-8f5a-1c2d3e4f5a6b"]],
  uuid5: [["0b1c2b60-1a4b-5d3e-8f5a-1c2d3e4f5a6b"], ["0b1c2b60-1a4b-4d3e-8f5a-1c2d3e4f5a6b"]],
  uuid7: [["0b1c2b60-1a4b-7d3e-8f5a-1c2d3e4f5a6b"], ["0b1c2b60-1a4b-4d3e-8f5a-1c2d3e4f5a6b"]],
  isbn: [["0306406152", "978-0-306-40615-7"], ["0306406153"]],
  isbn10: [["0-306-40615-2", "080442957X"], ["9780306406157"]],
  isbn13: [["978 0 306 40615 7"], ["0306406152", "9780306406158"]],
  creditcard: [
    ["4111 1111 1111 1111", "5500-0000-0000-0004"],
    ["4111 1111 1111 1112", "1234"],
  ],
  ssn: [
    ["123-45-6789", "123 45 6789"],
    ["123456789", "12-345-6789"],
  ],
  hexcolor: [
    ["#fff", "abcdef"],
    ["#ffff", "red"],
  ],
  rgbcolor: [
    ["rgb(0, 128, 255)", "rgb(0,0,0)"],
    ["rgb(256,0,0)", "rgba(0,0,0,1)"],
  ],
  byte: [
    ["aGVsbG8=", "", "aGVs\nbG8="],
    ["aGVsbG8", "a b="],
  ],
  password: [["anything at all"], []],
  date: [
    ["2024-02-29", "2023-12-31"],
    ["2023-02-29", "2023-1-1", "2023-01-01T00:00:00Z"],
  ],
  datetime: [
    ["2023-01-01T10:00:00Z", "2023-01-01t10:00:00.5+02:00"],
    ["2023-01-01 10:00:00Z", "2023-01-01T24:00:00Z", "2023-01-01T10:00:00"],
  ],
  duration: [
    ["1h30m", "3 weeks", "1.5 hours", "-2d", "0", "10 ms"],
    ["soon", "1 fortnight", "h", ""],
  ],
  bsonobjectid: [["507f1f77bcf86cd799439011"], ["507f1f77bcf86cd79943901", "zzzf1f77bcf86cd799439011"]],
  ulid: [
    ["01ARZ3NDEKTSV4RRFFQ69G5FAV", "01arz3ndektsv4rrffq69g5fav"],
    ["01ARZ3NDEKTSV4RRFFQ69G5FA", "81ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FAI"],
  ],
};

describe("strfmt.Default's formats, as Go's parsers accept them", () => {
  it("knows exactly the names strfmt.Default registers", () => {
    assert.deepEqual([...knownFormats].sort(), Object.keys(table).sort());
    // The spec says 25 but lists 26 names; strfmt v0.26.2 registers these 26.
    assert.equal(knownFormats.length, 26);
  });
  for (const [format, [accepted, refused]] of Object.entries(table)) {
    it(format, () => {
      for (const value of accepted)
        assert.equal(matchesFormat(format, value), true, `${format} accepts ${JSON.stringify(value)}`);
      for (const value of refused)
        assert.equal(matchesFormat(format, value), false, `${format} refuses ${JSON.stringify(value)}`);
    });
  }
  it("looks names up without dashes, and passes unknown formats", () => {
    assert.equal(matchesFormat("date-time", "2023-01-01T10:00:00Z"), true);
    assert.equal(matchesFormat("date-time", "yesterday"), false);
    assert.equal(matchesFormat("k8s-quantity", "anything"), true);
  });
});
