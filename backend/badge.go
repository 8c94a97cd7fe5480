package backend

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// badgePool is the fixed set of short words a session's badge is drawn from. Short, distinct,
// easy to say: the badge tells two chats in the same folder apart on the status line.
var badgePool = [...]string{
	"acorn", "alder", "amber", "anchor", "apple", "arch", "arrow", "aspen", "atlas", "aurora",
	"badger", "bamboo", "basil", "bay", "beacon", "beech", "berry", "birch", "bison", "bloom",
	"bolt", "brook", "cabin", "cactus", "canyon", "cedar", "chalk", "cherry", "cinder", "clay",
	"clover", "cobalt", "comet", "copper", "coral", "cove", "crane", "creek", "crest", "crow",
	"cypress", "daisy", "delta", "dew", "dune", "dusk", "eagle", "elm", "ember", "fable",
	"falcon", "fern", "field", "finch", "fjord", "flint", "fox", "frost", "gale", "garnet",
	"gecko", "ginger", "glade", "glen", "granite", "grove", "gull", "harbor", "hare", "hawk",
	"hazel", "heath", "heron", "hill", "holly", "honey", "iris", "islet", "ivory", "ivy",
	"jade", "jasper", "juniper", "kelp", "kestrel", "kite", "koi", "lagoon", "lake", "lark",
	"laurel", "lava", "leaf", "lemon", "lichen", "lilac", "lily", "linden", "lotus", "lynx",
	"maple", "marble", "marsh", "meadow", "mesa", "mint", "mist", "moon", "moose", "moss",
	"moth", "nectar", "nova", "oak", "oasis", "ocean", "olive", "onyx", "orbit", "orchid",
	"osprey", "otter", "owl", "palm", "pansy", "pearl", "pebble", "pepper", "petal", "pine",
	"plum", "pond", "poppy", "prairie", "quail", "quartz", "rain", "raven", "reed", "reef",
	"ridge", "river", "robin", "rose", "ruby", "rush", "sage", "salmon", "sand", "shell",
	"shore", "silk", "sky", "slate", "snow", "sorrel", "spark", "spruce", "star", "stone",
	"storm", "summit", "sun", "swan", "teak", "tern", "thistle", "thorn", "thyme", "tide",
	"tiger", "topaz", "trail", "trout", "tulip", "tundra", "vale", "valley", "violet", "wave",
	"willow", "wind", "wren", "yarrow", "yew", "zephyr", "zinnia", "basalt", "bramble", "briar",
	"cairn", "cumin", "dahlia", "egret", "fennel", "geode", "hemlock", "indigo", "lupine", "mango",
}

// BadgePoolSize is how many distinct plain words the badge pool holds; past that, badges get a
// digit suffix.
const BadgePoolSize = len(badgePool)

// pickBadge returns a badge not in taken (compared case-insensitively): a random free word of
// the pool, or, when every word is taken, the first free word+digit combination.
func pickBadge(taken map[string]bool) string {
	free := make([]string, 0, len(badgePool))
	for _, w := range badgePool {
		if !taken[w] {
			free = append(free, w)
		}
	}
	if len(free) > 0 {
		return free[rand.IntN(len(free))]
	}
	for n := 2; ; n++ {
		start := rand.IntN(len(badgePool))
		for i := range badgePool {
			w := badgePool[(start+i)%len(badgePool)] + strconv.Itoa(n)
			if !taken[w] {
				return w
			}
		}
	}
}

// takenBadges indexes the badges of the given sessions, lower-cased.
func takenBadges(sessions []MCPSession) map[string]bool {
	taken := make(map[string]bool, len(sessions))
	for _, s := range sessions {
		taken[strings.ToLower(s.Badge)] = true
	}
	return taken
}
