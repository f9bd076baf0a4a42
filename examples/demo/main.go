// demo: a small Go program for trying gostap's examples.
//
// Workers handle requests; each request recurses to a depth that grows
// the goroutine's stack (runtime.newstack), allocates (GC cycles), and
// hands results over channels (goroutines park and wake). It runs for the
// number of seconds given as its first argument (default 5).
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

type request struct {
	id    int
	depth int
	name  string
}

//go:noinline
func add(a, b int) int { return a + b }

// rec recurses with a frame big enough to make the stack grow.
//
//go:noinline
func rec(n int) int {
	var pad [64]int
	pad[n%64] = n
	if n == 0 {
		return pad[0]
	}
	return add(rec(n-1), pad[n%64])
}

//go:noinline
func handle(r request) (string, error) {
	sum := rec(r.depth)
	buf := make([]byte, 0, 1024)
	buf = append(buf, r.name...)
	return fmt.Sprintf("%s:%d:%d", buf, r.id, sum), nil
}

func worker(id int, in <-chan request, out chan<- string, wg *sync.WaitGroup) {
	defer wg.Done()
	for r := range in {
		s, err := handle(r)
		if err != nil || !validate(&r) {
			continue
		}
		out <- s
	}
}

func main() {
	seconds := 5
	if len(os.Args) > 1 {
		if v, err := strconv.Atoi(os.Args[1]); err == nil {
			seconds = v
		}
	}
	deadline := time.Now().Add(time.Duration(seconds) * time.Second)
	total := 0
	for round := 0; time.Now().Before(deadline); round++ {
		in := make(chan request)
		out := make(chan string, 64)
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go worker(w, in, out, &wg)
		}
		go func() {
			for i := 0; i < 64; i++ {
				in <- request{id: i, depth: 50 + (i*37)%400, name: "req"}
			}
			close(in)
		}()
		go func() { wg.Wait(); close(out) }()
		for range out {
			total++
		}
	}
	fmt.Printf("demo: handled %d requests\n", total)
}

// validate takes the request by pointer (examples/args.stp reads its
// fields through it). Last in the file, so that the lines of the
// functions above stay where the examples' output shows them.
//
//go:noinline
func validate(r *request) bool { return r.depth >= 0 && r.name != "" }
