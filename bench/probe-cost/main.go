// probe-cost: the Go program of benchmark T4 (bench/probe-cost.sh).
//
// main.hot, a small leaf function that is never inlined, is called N times
// in a loop on one goroutine; the program times the loop itself (time.Now
// before and after) and prints one line:
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
	sum := 0
	t0 := time.Now()
	for i := 0; i < n; i++ {
		sum += hot(i, sum&7)
	}
	ns := time.Since(t0).Nanoseconds()
	fmt.Printf("PROBECOST calls=%d ns_total=%d ns_per_call=%.1f sum=%d\n",
		n, ns, float64(ns)/float64(n), sum)
}
