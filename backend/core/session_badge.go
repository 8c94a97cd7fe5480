package core

import "math/rand/v2"

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

// shuffledBadgePool is the pool in a fresh random order. The Store opens a session with the
// first word of it that is free at the lowest level with a free word (level 1: the plain word;
// level n: word+n, once every badge of the levels below is taken), so a badge is a random free
// word while the pool lasts, and unique among live sessions always.
func shuffledBadgePool() []string {
	pool := append([]string(nil), badgePool[:]...)
	rand.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	return pool
}
