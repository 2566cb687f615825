package leadimport_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lendingpipe/svc/ent/importjob"
	"github.com/lendingpipe/svc/leadimport"
)

// BenchmarkImport100k imports a file of 100,000 leads end to end: the file
// stored and its job queued (Start), then the worker's batches, each lead
// validated, created and announced by lead.created in the outbox
// (PRODUCT 6: under a minute).
func BenchmarkImport100k(b *testing.B) {
	const rows = 100_000
	file := leadsCSV(rows)
	for b.Loop() {
		b.StopTimer()
		e := newEnv(b)
		w := e.worker()
		b.StartTimer()
		start := time.Now()
		j := e.start(b, file, importjob.DedupeNONE)
		if _, err := w.RunOnce(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(time.Since(start).Seconds(), "s/import")
		b.StopTimer()
		e.imported(b, j.ID, rows)
		b.StartTimer()
	}
}

// BenchmarkBatchModes compares a batch run whole with one run a savepoint
// a row, which a batch falls back to when the database refuses a row.
func BenchmarkBatchModes(b *testing.B) {
	const rows = 20_000
	file := leadsCSV(rows)
	for _, careful := range []bool{false, true} {
		name := "whole"
		if careful {
			name = "savepoint-a-row"
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				e := newEnv(b)
				w := e.worker()
				if careful {
					leadimport.AlwaysCareful(w)
				}
				e.start(b, file, importjob.DedupeNONE)
				b.StartTimer()
				start := time.Now()
				if _, err := w.RunOnce(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(time.Since(start).Microseconds())/rows, "µs/row")
			}
		})
	}
}

// BenchmarkBatchSizes measures the records a transaction settles against
// the time a row takes (DefaultBatch is chosen from it).
func BenchmarkBatchSizes(b *testing.B) {
	const rows = 20_000
	file := leadsCSV(rows)
	for _, size := range []int{100, 250, 500, 1000, 2000} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			for b.Loop() {
				b.StopTimer()
				e := newEnv(b)
				w := e.worker()
				w.Batch = size
				e.start(b, file, importjob.DedupeNONE)
				b.StartTimer()
				start := time.Now()
				if _, err := w.RunOnce(context.Background()); err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(time.Since(start).Microseconds())/rows, "µs/row")
			}
		})
	}
}
