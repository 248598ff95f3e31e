package gate

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// Number vectors of RFC 8785 Appendix B (IEEE 754 bit patterns → ECMAScript form).
func TestESNumberVectors(t *testing.T) {
	cases := []struct {
		bits uint64
		want string
	}{
		{0x0000000000000000, "0"},
		{0x8000000000000000, "0"},
		{0x0000000000000001, "5e-324"},
		{0x8000000000000001, "-5e-324"},
		{0x7fefffffffffffff, "1.7976931348623157e+308"},
		{0xffefffffffffffff, "-1.7976931348623157e+308"},
		{0x4340000000000000, "9007199254740992"},
		{0xc340000000000000, "-9007199254740992"},
		{0x4430000000000000, "295147905179352830000"},
		{0x44b52d02c7e14af5, "9.999999999999997e+22"},
		{0x44b52d02c7e14af6, "1e+23"},
		{0x44b52d02c7e14af7, "1.0000000000000001e+23"},
		{0x444b1ae4d6e2ef4e, "999999999999999700000"},
		{0x444b1ae4d6e2ef4f, "999999999999999900000"},
		{0x444b1ae4d6e2ef50, "1e+21"},
		{0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"},
		{0x3eb0c6f7a0b5ed8d, "0.000001"},
		{0x41b3de4355555553, "333333333.3333332"},
		{0x41b3de4355555554, "333333333.33333325"},
		{0x41b3de4355555555, "333333333.3333333"},
		{0x41b3de4355555556, "333333333.3333334"},
		{0x41b3de4355555557, "333333333.33333343"},
		{0xbecbf647612f3696, "-0.0000033333333333333333"},
		{0x43143ff3c1cb0959, "1424953923781206.2"},
	}
	for _, tc := range cases {
		if got := string(AppendESNumber(nil, math.Float64frombits(tc.bits))); got != tc.want {
			t.Errorf("%#016x: got %s, want %s", tc.bits, got, tc.want)
		}
	}
}

func TestCanonicalize(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{
			"RFC 8785 §3.2.2 example",
			`{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
			  "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
			  "literals": [null, true, false]}`,
			`{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"€$\u000f\nA'B\"\\\\\"/"}`,
		},
		{
			"RFC 8785 §3.2.3 sorting by UTF-16 code units",
			`{"\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
			  "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
			  "\u00f6": "Latin Small Letter O With Diaeresis"}`,
			"{\"\\r\":\"Carriage Return\",\"1\":\"One\",\"\u0080\":\"Control\",\"ö\":\"Latin Small Letter O With Diaeresis\"," +
				"\"€\":\"Euro Sign\",\"😀\":\"Emoji: Grinning Face\",\"\ufb33\":\"Hebrew Letter Dalet With Dagesh\"}",
		},
		{"nested objects sorted", `{"b":{"z":1,"a":[{"y":2,"x":1}]},"a":0}`, `{"a":0,"b":{"a":[{"x":1,"y":2}],"z":1}}`},
		{"whitespace removed", " [ 1 , { } , [ ] , \"\" ] ", `[1,{},[],""]`},
		{"integers as doubles", `[1.0, -0, 1e2, 100e-2, 123456789012345678901234]`, `[1,0,100,1,1.2345678901234569e+23]`},
		{"controls escaped, others literal", `"\u001f\u007f\u2028\b\f\t"`, "\"\\u001f\u007f\u2028\\b\\f\\t\""},
		{"slash and html not escaped", `"</script>&"`, `"</script>&"`},
		{"literals", `[true,false,null]`, `[true,false,null]`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonicalize([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
			again, err := Canonicalize(got)
			if err != nil || string(again) != string(got) {
				t.Fatalf("not idempotent: %s, %v", again, err)
			}
		})
	}
}

func TestCanonicalizeRefuses(t *testing.T) {
	bad := map[string]string{
		"duplicate name":   `{"a":1,"a":2}`,
		"lone high":        `"\ud800"`,
		"lone low":         `"\udc00x"`,
		"high then letter": `"\ud800\u0041"`,
		"invalid utf-8":    "\"\xff\"",
		"number overflow":  `1e400`,
		"leading zero":     `01`,
		"bare dot":         `1.`,
		"trailing data":    `{} {}`,
		"empty":            ``,
		"raw control":      "\"a\x01\"",
		"bad escape":       `"\x"`,
		"unterminated":     `{"a":1`,
		"too deep":         strings.Repeat("[", 65) + strings.Repeat("]", 65),
		"bad literal":      `nul`,
		"plus sign":        `+1`,
	}
	for name, in := range bad {
		if _, err := Canonicalize([]byte(in)); !errors.Is(err, ErrNotCanonicalizable) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := Canonicalize([]byte(strings.Repeat("[", 64) + strings.Repeat("]", 64))); err != nil {
		t.Errorf("depth 64: %v", err)
	}
}

func FuzzCanonicalize(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.5,"x",null]}`, `1e21`, `"\ud83d\ude00"`, `-0.0000001`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonicalize(in)
		if err != nil {
			return
		}
		again, err := Canonicalize(out)
		if err != nil || string(again) != string(out) {
			t.Fatalf("canonical form %s is not stable: %s, %v", out, again, err)
		}
	})
}
