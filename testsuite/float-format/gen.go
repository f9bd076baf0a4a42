// gen.go: Go's own formatting of floats, for run-float-format.sh.
//
//	gen -seed N [-random N] [-short N]   the cases, one a line:
//	                                     "f64 HEX", "f32 HEX", "c128 HEX HEX",
//	                                     "c64 HEX HEX", then "end COUNT"
//	check                                reads those lines with a string
//	                                     appended ("f64 HEX STRING"), the
//	                                     output of harness.c, and compares
//
// check compares each string byte for byte with Go's
// strconv.FormatFloat(x, 'g', -1, 64|32) (and fmt's %v, which must agree),
// or fmt's %v for complex numbers, and parses it back with
// strconv.ParseFloat / ParseComplex: the bits must come back (any NaN for
// a NaN).  It prints one summary line a kind, the first mismatches, and
// exits 1 when any string differs or fails to parse back.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"strconv"
	"strings"
)

var out *bufio.Writer

func f64(b uint64)       { fmt.Fprintf(out, "f64 %016x\n", b) }
func f32(b uint32)       { fmt.Fprintf(out, "f32 %08x\n", b) }
func c128(re, im uint64) { fmt.Fprintf(out, "c128 %016x %016x\n", re, im) }
func c64(re, im uint32)  { fmt.Fprintf(out, "c64 %08x %08x\n", re, im) }
func neighbours64(b uint64) {
	for _, x := range []uint64{b - 1, b, b + 1} {
		f64(x)
		f64(x ^ 1<<63)
	}
}
func neighbours32(b uint32) {
	for _, x := range []uint32{b - 1, b, b + 1} {
		f32(x)
		f32(x ^ 1<<31)
	}
}

// Special values of each size: zeros, infinities, NaNs with several
// payloads, the extreme subnormals and normals.
var special64 = []uint64{
	0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000,
	0x7ff8000000000000, 0xfff8000000000000, 0x7ff0000000000001,
	0x7ff4000000000000, 0x7fffffffffffffff, 0xffffffffffffffff,
	0x7ff800000000dead, 0xfff0000000000001,
	1, 2, 3, 0x000fffffffffffff, 0x0010000000000000, 0x0010000000000001,
	0x7fefffffffffffff, 0x7feffffffffffffe, 0x3ff0000000000000,
	0x400921fb54442d18, 0x3fb999999999999a, 0x3fd5555555555555,
	0x4340000000000000, 0x433fffffffffffff, 0x4330000000000000,
	// Ties: v exactly halfway between the two shortest candidates
	// (2251799813685247.75 between .7 and .8; Go takes the even digit).
	0x431fffffffffffff, 0x4310000000000001, 0x432fffffffffffff,
}
var special32 = []uint32{
	0, 1 << 31, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000,
	0x7f800001, 0x7fa00000, 0x7fffffff, 0xffffffff, 0x7fc0dead,
	0xff800001, 1, 2, 3, 0x007fffff, 0x00800000, 0x00800001,
	0x7f7fffff, 0x7f7ffffe, 0x3f800000, 0x40490fdb, 0x3dcccccd,
	0x3eaaaaab, 0x4b800000, 0x4b7fffff, 0x4b000000,
	0x4a7fffff, 0x4a000001, 0x4affffff, // ties, as above
}

// Decimal boundaries: where the %e/%f choice flips, and values whose
// shortest form is a few digits.
var decimals = []string{
	"1e21", "1e20", "1e6", "999999", "999999.9999", "999999.99999999",
	"9999999", "100000", "123456", "1234567", "1e-4", "1e-5", "0.0001",
	"0.00001", "0.000123", "0.00009999", "0.1", "0.2", "0.3", "0.7",
	"1.1", "2.5", "3.14159", "123.456", "1e23", "8.41e21", "5e-324",
	"1.7976931348623157e308", "2.2250738585072014e-308", "4.9406564584124654e-324",
	"9007199254740993", "0.3333333333333333", "3.4028235e38", "1.4e-45",
	"1.17549435e-38", "16777217", "1e-45", "7.038531e-26", "1e38",
}

func gen(seed int64, nrandom, nshort int) {
	for _, b := range special64 {
		neighbours64(b)
	}
	for _, b := range special32 {
		neighbours32(b)
	}
	// Every power of two and its neighbours (subnormal ones included).
	for e := uint64(1); e < 0x7ff; e++ {
		neighbours64(e << 52)
	}
	for i := uint(0); i < 52; i++ {
		neighbours64(1 << i)
	}
	for e := uint32(1); e < 0xff; e++ {
		neighbours32(e << 23)
	}
	for i := uint(0); i < 23; i++ {
		neighbours32(1 << i)
	}
	// Every power of ten in range, and the decimals above.
	for p := -330; p <= 310; p++ {
		s := "1e" + strconv.Itoa(p)
		if x, err := strconv.ParseFloat(s, 64); err == nil && x != 0 && !math.IsInf(x, 0) {
			neighbours64(math.Float64bits(x))
		}
		if x, err := strconv.ParseFloat(s, 32); err == nil && x != 0 && !math.IsInf(x, 0) {
			neighbours32(math.Float32bits(float32(x)))
		}
	}
	for _, s := range decimals {
		if x, err := strconv.ParseFloat(s, 64); err == nil {
			neighbours64(math.Float64bits(x))
		}
		if x, err := strconv.ParseFloat(s, 32); err == nil {
			neighbours32(math.Float32bits(float32(x)))
		}
	}
	// Small integers and their tenths and hundredths.
	for i := 0; i <= 2000; i++ {
		for _, d := range []float64{1, 10, 100} {
			f64(math.Float64bits(float64(i) / d))
			f32(math.Float32bits(float32(float64(i) / d)))
		}
	}

	r := rand.New(rand.NewSource(seed))
	// Uniform bit patterns: every exponent equally often.
	for i := 0; i < nrandom; i++ {
		f64(r.Uint64())
		f32(r.Uint32())
	}
	// Short decimals (1 to 17 digits, any exponent): the shortest form is
	// often shorter than the precision, and its neighbours are not.
	for i := 0; i < nshort; i++ {
		nd := 1 + r.Intn(17)
		mant := r.Int63n(int64(math.Pow10(nd)))
		s := strconv.FormatInt(mant, 10) + "e" + strconv.Itoa(r.Intn(650)-335)
		if x, err := strconv.ParseFloat(s, 64); err == nil || strings.Contains(err.Error(), "range") {
			b := math.Float64bits(x)
			f64(b)
			f64(b + 1)
		}
		s = strconv.FormatInt(mant%100000000, 10) + "e" + strconv.Itoa(r.Intn(90)-50)
		if x, err := strconv.ParseFloat(s, 32); err == nil || strings.Contains(err.Error(), "range") {
			b := math.Float32bits(float32(x))
			f32(b)
			f32(b + 1)
		}
	}

	// Complex numbers: every pair of some special values, and random ones.
	parts64 := []uint64{0, 1 << 63, 0x7ff0000000000000, 0xfff0000000000000,
		0x7ff8000000000000, 0xfff8000000000001, 1, 0x7fefffffffffffff,
		0x3ff0000000000000, 0xbff0000000000000, 0x4000000000000000,
		0xc004000000000000, 0x3fb999999999999a, 0x44b52d02c7e14af6,
		0x3ee4f8b588e368f1}
	parts32 := []uint32{0, 1 << 31, 0x7f800000, 0xff800000, 0x7fc00000,
		0xffc00001, 1, 0x7f7fffff, 0x3f800000, 0xbf800000, 0x40000000,
		0xc0200000, 0x3dcccccd, 0x5a0e1bca, 0x3727c5ac}
	for _, a := range parts64 {
		for _, b := range parts64 {
			c128(a, b)
		}
	}
	for _, a := range parts32 {
		for _, b := range parts32 {
			c64(a, b)
		}
	}
	for i := 0; i < 300; i++ {
		c128(r.Uint64(), r.Uint64())
		c64(r.Uint32(), r.Uint32())
	}
}

type kind struct {
	name                     string
	values, equal, roundtrip int
	notF64Shortest           int // f32 only: its digits differ from float64's shortest
}

func check() int {
	kinds := map[string]*kind{}
	order := []string{"f64", "f32", "c128", "c64"}
	for _, k := range order {
		kinds[k] = &kind{name: k}
	}
	shown, bad, lines, end := 0, 0, 0, -1
	report := func(format string, a ...interface{}) {
		bad++
		if shown < 30 {
			shown++
			fmt.Printf("  "+format+"\n", a...)
		}
	}
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		line := in.Text()
		fld := strings.Fields(line)
		if len(fld) == 2 && fld[0] == "end" {
			end, _ = strconv.Atoi(fld[1])
			continue
		}
		lines++
		k := kinds[""]
		if len(fld) > 0 {
			k = kinds[fld[0]]
		}
		if k == nil || len(fld) < 2 {
			report("malformed line %q", line)
			continue
		}
		nbits := 1
		if k.name[0] == 'c' {
			nbits = 2
		}
		if len(fld) != 2+nbits {
			report("malformed line %q", line)
			continue
		}
		ours := fld[1+nbits]
		var bits [2]uint64
		for i := 0; i < nbits; i++ {
			var err error
			if bits[i], err = strconv.ParseUint(fld[1+i], 16, 64); err != nil {
				report("malformed line %q", line)
				continue
			}
		}
		k.values++
		var want string
		rt := false
		switch k.name {
		case "f64":
			x := math.Float64frombits(bits[0])
			want = strconv.FormatFloat(x, 'g', -1, 64)
			if v := fmt.Sprintf("%v", x); v != want {
				report("Go disagrees with itself: %016x strconv %q fmt %q", bits[0], want, v)
			}
			y, err := strconv.ParseFloat(ours, 64)
			rt = err == nil && (math.Float64bits(y) == bits[0] || math.IsNaN(x) && math.IsNaN(y))
		case "f32":
			x := math.Float32frombits(uint32(bits[0]))
			want = strconv.FormatFloat(float64(x), 'g', -1, 32)
			if v := fmt.Sprintf("%v", x); v != want {
				report("Go disagrees with itself: %08x strconv %q fmt %q", bits[0], want, v)
			}
			if want != strconv.FormatFloat(float64(x), 'g', -1, 64) {
				k.notF64Shortest++
			}
			y, err := strconv.ParseFloat(ours, 32)
			rt = err == nil && (math.Float32bits(float32(y)) == uint32(bits[0]) ||
				math.IsNaN(float64(x)) && math.IsNaN(y))
		case "c128":
			re, im := math.Float64frombits(bits[0]), math.Float64frombits(bits[1])
			want = fmt.Sprintf("%v", complex(re, im))
			y, err := strconv.ParseComplex(ours, 128)
			rt = err == nil && same64(real(y), re) && same64(imag(y), im)
		case "c64":
			re, im := math.Float32frombits(uint32(bits[0])), math.Float32frombits(uint32(bits[1]))
			want = fmt.Sprintf("%v", complex(re, im))
			y, err := strconv.ParseComplex(ours, 64)
			rt = err == nil && same32(float32(real(y)), re) && same32(float32(imag(y)), im)
		}
		if ours == want {
			k.equal++
		} else {
			report("%s %s: ours %q, Go %q", k.name, strings.Join(fld[1:1+nbits], " "), ours, want)
		}
		if rt {
			k.roundtrip++
		} else {
			report("%s %s: ours %q does not parse back to the same bits", k.name,
				strings.Join(fld[1:1+nbits], " "), ours)
		}
	}
	if err := in.Err(); err != nil {
		report("reading: %v", err)
	}
	if end != lines {
		report("%d lines read, the generator wrote %d (truncated output?)", lines, end)
	}
	for _, name := range order {
		k := kinds[name]
		what := "strconv.FormatFloat"
		if name[0] == 'c' {
			what = "fmt %v"
		}
		extra := ""
		if name == "f32" {
			extra = fmt.Sprintf(" (%d of them unlike float64's shortest)", k.notF64Shortest)
		}
		fmt.Printf("# %s: %d values, %d equal to Go's %s%s, %d mismatches, %d parse back\n",
			name, k.values, k.equal, what, extra, k.values-k.equal, k.roundtrip)
	}
	fmt.Printf("# total: %d lines, %d problems\n", lines, bad)
	if bad != 0 {
		return 1
	}
	return 0
}

func same64(a, b float64) bool {
	return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
}

func same32(a, b float32) bool {
	return math.Float32bits(a) == math.Float32bits(b) || a != a && b != b
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gen gen|check [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	seed := fs.Int64("seed", 1, "random seed")
	nrandom := fs.Int("random", 1000000, "uniform random bit patterns of each size")
	nshort := fs.Int("short", 100000, "random short decimals of each size (each and its successor)")
	fs.Parse(os.Args[2:])
	out = bufio.NewWriterSize(os.Stdout, 1<<16)
	switch os.Args[1] {
	case "gen":
		cw := &countWriter{w: out}
		out = bufio.NewWriterSize(cw, 1<<16)
		gen(*seed, *nrandom, *nshort)
		out.Flush()
		fmt.Fprintf(cw.w, "end %d\n", cw.lines)
		cw.w.Flush()
	case "check":
		os.Exit(check())
	default:
		fmt.Fprintln(os.Stderr, "usage: gen gen|check [flags]")
		os.Exit(2)
	}
}

// countWriter counts the lines written through it.
type countWriter struct {
	w     *bufio.Writer
	lines int
}

func (c *countWriter) Write(p []byte) (int, error) {
	for _, b := range p {
		if b == '\n' {
			c.lines++
		}
	}
	return c.w.Write(p)
}
