// Which parts of speech wink-nlp's tagger can give a lexicon word, read from its own pattern machines (issue #32 item 1).

/**
 * The tagger's moves, read from the model: wink-nlp starts a token at its lexeme's default tag, then each pattern
 * machine retags the token at a match's marked position: to `-target` whatever it is (a negative target), or to
 * `target` only if the token's lexeme cluster holds it. A pattern sees a token as its lexeme's `posHint` (plus
 * HINT_BASE) when it has one, else as its current tag (pos-transformers.js).
 */
export interface TagMoves {
  /** Symbol → tags a negative target forces on the marked token. */
  forced: Map<number, Set<number>>;
  /** Symbol → tags a positive target gives the marked token if its cluster holds them. */
  allowed: Map<number, Set<number>>;
  /** Tags some pattern gives a token at a position its path does not fix (any token may get them). */
  anyToken: Set<number>;
}

/** What pos-transformers.js adds to a hint to make it a pattern symbol. */
const HINT_BASE = 1_080_000;
const OTHERWISE = '2070003';

type Machine = [
  number,
  number,
  Record<string, Record<string, number>>,
  Record<string, string>,
  Record<string, number[]>,
];

function add(map: Map<number, Set<number>>, symbol: number, tag: number): void {
  let tags = map.get(symbol);
  if (!tags) {
    tags = new Set();
    map.set(symbol, tags);
  }
  tags.add(tag);
}

/**
 * Reads every pattern of the tagger's machines (wink-nlp/src/automaton.js: a trie whose terminals name the target,
 * reached directly or, for a shorter pattern, by an `otherwise` edge from any state below it) and the symbol at
 * each pattern's marked position.
 */
export function tagMovesOf(machines: readonly string[]): TagMoves {
  const moves: TagMoves = { forced: new Map(), allowed: new Map(), anyToken: new Set() };
  for (const json of machines) {
    const [, , fsm, terminals, marks] = JSON.parse(json) as Machine;
    const parent = new Map<number, [number, string]>();
    const fallbackFrom = new Map<number, number[]>();
    for (const [state, edges] of Object.entries(fsm))
      for (const [symbol, next] of Object.entries(edges)) {
        if (symbol !== OTHERWISE) parent.set(next, [Number(state), symbol]);
        else if (next !== 0) fallbackFrom.set(next, [...(fallbackFrom.get(next) ?? []), Number(state)]);
      }
    const pathTo = (state: number): string[] => {
      const path: string[] = [];
      for (let at = state; at !== 0; at = parent.get(at)![0]) path.unshift(parent.get(at)![1]);
      return path;
    };
    for (const [terminal, name] of Object.entries(terminals)) {
      const target = Number(name);
      if (name === '0' || !Number.isInteger(target)) continue;
      const state = Number(terminal);
      const mark = marks[terminal]?.[0] ?? 0;
      const paths = [...(parent.has(state) ? [pathTo(state)] : []), ...(fallbackFrom.get(state) ?? []).map(pathTo)];
      // A terminal no edge leads to (three in the lite model) is never matched.
      for (const path of paths) {
        const symbol = Number(path[mark]);
        if (mark >= path.length || !Number.isInteger(symbol)) moves.anyToken.add(Math.abs(target));
        else add(target < 0 ? moves.forced : moves.allowed, symbol, Math.abs(target));
      }
    }
  }
  return moves;
}

/**
 * Every tag the tagger can give a token of an intrinsic lexeme: from `start` (its default tag), the closure under
 * the moves its symbol allows (`hint` when it has one, else its current tag), positive ones only into its cluster.
 */
export function reachableTags(start: number, hint: number, inCluster: (tag: number) => boolean, moves: TagMoves) {
  const tags = new Set<number>([start, ...moves.anyToken]);
  const queue = [...tags];
  const reach = (tag: number) => {
    if (tags.has(tag)) return;
    tags.add(tag);
    queue.push(tag);
  };
  const fromSymbol = (symbol: number) => {
    for (const tag of moves.forced.get(symbol) ?? []) reach(tag);
    for (const tag of moves.allowed.get(symbol) ?? []) if (inCluster(tag)) reach(tag);
  };
  if (hint) fromSymbol(hint + HINT_BASE);
  else while (queue.length > 0) fromSymbol(queue.pop()!);
  return tags;
}
