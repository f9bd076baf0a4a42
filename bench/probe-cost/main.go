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
//
// With a second argument "fmt" the loop calls main.rec instead (T9, the
// cost of go_fmt): its argument, a 10-field struct with a 4-element slice
// and a 4-entry map, by value; the program then also prints fmt's %+v of
// it, which the probe's v_fmt must equal:
//
//	PROBECOST fmt={ID:7 Name:bench ...}
//
// With "mig" (issue 39: what a tracer keyed by thread gets wrong) N calls
// of main.slow(id), id = 1..N, on 8 goroutines; main.slow sleeps 2-6 ms
// (so its goroutine parks, its thread runs others, and it may go on on
// another thread) and returns its id.
// The program counts the calls that returned on another thread than they
// started on (gettid before and after the call) and prints
//
//	PROBECOST mig calls=N migrated=M ns_total=T
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// hot: two int arguments, one result, a few instructions, no frame.
//
//go:noinline
func hot(a, b int) int {
	return a*3 + b ^ 5
}

// Rec: the value main.rec takes (10 fields; on the stack by Go's ABI).
type Rec struct {
	ID    int64
	Name  string
	Ok    bool
	Score float64
	Tags  []string
	Attrs map[string]int
	Next  *Rec
	Code  uint16
	Kind  int8
	When  int64
}

//go:noinline
func rec(v Rec) int {
	return int(v.ID) + len(v.Tags)
}

// slow: parks its goroutine for a while (the timer may wake it on another
// thread), returns its argument.
//
//go:noinline
func slow(id int) int {
	time.Sleep(time.Duration(2000+id%5*1000) * time.Microsecond)
	return id
}

// mig: n calls of slow on 8 goroutines; the calls that came back on
// another thread.
func mig(n int) {
	const workers = 8
	var wg sync.WaitGroup
	var mu sync.Mutex
	migrated := 0
	t0 := time.Now()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			m := 0
			for id := w + 1; id <= n; id += workers {
				before := syscall.Gettid()
				if slow(id) != id {
					panic("slow")
				}
				if syscall.Gettid() != before {
					m++
				}
			}
			mu.Lock()
			migrated += m
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	fmt.Printf("PROBECOST mig calls=%d migrated=%d ns_total=%d\n", n, migrated, time.Since(t0).Nanoseconds())
}

var fmtMode bool

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
	if len(os.Args) > 2 && os.Args[2] == "mig" {
		mig(n)
		return
	}
	fmtMode = len(os.Args) > 2 && os.Args[2] == "fmt"
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
	var ns int64
	if fmtMode {
		v := Rec{ID: 7, Name: "bench", Ok: true, Score: 2.5, Tags: []string{"a", "b", "c", "d"},
			Attrs: map[string]int{"a": 1, "b": 2, "c": 3, "d": 4}, Code: 9, Kind: -1, When: 42}
		t0 := time.Now()
		for i := 0; i < n; i++ {
			sum += rec(v)
		}
		ns = time.Since(t0).Nanoseconds()
		fmt.Printf("PROBECOST fmt=%+v\n", v)
	} else {
		t0 := time.Now()
		for i := 0; i < n; i++ {
			sum += hot(i, sum&7)
		}
		ns = time.Since(t0).Nanoseconds()
	}
	fmt.Printf("PROBECOST calls=%d ns_total=%d ns_per_call=%.1f sum=%d\n",
		n, ns, float64(ns)/float64(n), sum)
	return 0
}
