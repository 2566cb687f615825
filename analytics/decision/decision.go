// Package decision buckets the seconds an application waited for its
// lender's decision, as the lenders report's histogram (DecisionDay) keeps
// them: octaves of 32 buckets each, so a bucket is at most 1/32 of the
// values it holds wide, and seconds below 32 have a bucket each.
//
// A leaf: it imports nothing of this service.
package decision

import (
	"math/bits"
	"strconv"
	"time"
)

// Buckets is the number of buckets of an octave.
const Buckets = 32

// Bucket is the octave and the bucket within it that hold secs (0 or more).
func Bucket(secs int) (octave, bucket int) {
	if secs < Buckets {
		return 0, max(secs, 0)
	}
	e := bits.Len(uint(secs)) - 5 // secs is in [2^(e+4), 2^(e+5))
	return e, secs>>(e-1) - Buckets
}

// Bounds are the seconds [lo, hi) of a bucket.
func Bounds(octave, bucket int) (lo, hi int) {
	if octave == 0 {
		return bucket, bucket + 1
	}
	lo = (bucket + Buckets) << (octave - 1)
	return lo, lo + 1<<(octave-1)
}

// Column is the name of a bucket's column.
func Column(bucket int) string {
	if bucket < 10 {
		return "b0" + strconv.Itoa(bucket)
	}
	return "b" + strconv.Itoa(bucket)
}

// Seconds is the whole seconds from submitted to decided, rounded down:
// how the lenders report measures a decision.
func Seconds(submitted, decided time.Time) int { return int(decided.Sub(submitted) / time.Second) }
