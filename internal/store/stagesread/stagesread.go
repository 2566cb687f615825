// Package stagesread is internal/stagesread under its former path, for
// the seeder, which marks its bulk creates with it.
//
// Deprecated: use internal/stagesread.
//
// It imports internal/stagesread only.
package stagesread

import "github.com/lendingpipe/svc/internal/stagesread"

// With is stagesread.With.
var With = stagesread.With
