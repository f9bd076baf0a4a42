// probe-cost: the Go program of benchmark T4 (bench/probe-cost.sh).
//
// main.hot, a small leaf function that is never inlined, is called N times
// in a loop on one goroutine, 36 frames deep (for the stack variants); the
// program times the loop itself (time.Now before and after) and prints one
// line:
//
//	PROBECOST calls=N ns_total=T ns_per_call=X sum=S
//
// N is the first argument (default 20000). The sum of the results is
// printed so that the compiler cannot drop the calls.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// hot: two int arguments, one result, a few instructions, no frame.
//
//go:noinline
func hot(a, b int) int {
	return a*3 + b ^ 5
}

func main() {
	n := 20000
	if len(os.Args) > 1 {
		v, err := strconv.Atoi(os.Args[1])
		if err != nil || v <= 0 {
			fmt.Fprintf(os.Stderr, "probe-cost: bad call count %q\n", os.Args[1])
			os.Exit(64)
		}
		n = v
	}
	nest(32, n)
}

// nest runs the loop K calls deeper, so that main.hot runs 36 frames deep
// (main.hot, run, 32 x nest, main.main, runtime.main, runtime.goexit): the
// stack variants of probe-cost.sh record 32 frames.
//
//go:noinline
func nest(k, n int) int {
	if k == 0 {
		return run(n)
	}
	return nest(k-1, n) + 1
}

// run: the timed loop.
//
//go:noinline
func run(n int) int {
	sum := 0
	t0 := time.Now()
	for i := 0; i < n; i++ {
		sum += hot(i, sum&7)
	}
	ns := time.Since(t0).Nanoseconds()
	fmt.Printf("PROBECOST calls=%d ns_total=%d ns_per_call=%.1f sum=%d\n",
		n, ns, float64(ns)/float64(n), sum)
	return 0
}
