// cognee's default chunking (cognee 1.5.2 @ a8f9760b: TextChunker over chunk_by_paragraph / chunk_by_sentence /
// chunk_by_word, batch_paragraphs=True). Short documents become exactly one chunk holding the whole text.
import { pythonUuid5 as uuid5 } from '#python-compat/index.js';

/** A chunk as TextChunker yields it (the `DocumentChunk` fields we keep). */
export interface TextChunk {
  /** Chunk id: `uuid5(NAMESPACE_OID, f"{document_id}-{chunk_index}")` (or of the text, for an oversized piece). */
  id: string;
  /** The chunk text; the sentences of one chunk concatenate back to the source exactly. */
  text: string;
  /** Size in tokens (here: word pieces, see `chunkDocument`). */
  chunk_size: number;
  /** Position in the document. */
  chunk_index: number;
  /** Why the chunk ended: `sentence_end`, `paragraph_end`, `sentence_cut`, `default`. */
  cut_type: string;
}

type WordType = 'word' | 'sentence_end' | 'paragraph_end';
const SENTENCE_ENDING = /[.;!?…。！？]/;
const PARAGRAPH_ENDING = /[\n\r]/;
const LETTER = /\p{L}/u;

/** `chunk_by_word`: words with their trailing spaces; a sentence ending absorbs the spaces after it. */
function* chunkByWord(data: string): Generator<[string, WordType]> {
  let current = '';
  let index = 0;
  while (index < data.length) {
    const character = data.charAt(index);
    current += character;
    if (character === ' ') {
      yield [current, 'word'];
      current = '';
      index += 1;
      continue;
    }
    if (SENTENCE_ENDING.test(character)) {
      let next = index + 1;
      while (next < data.length && data.charAt(next) === ' ') current += data.charAt(next++);
      yield [
        current,
        next < data.length && PARAGRAPH_ENDING.test(data.charAt(next)) ? 'paragraph_end' : 'sentence_end',
      ];
      current = '';
      index = next;
      continue;
    }
    index += 1;
  }
  if (current) yield [current, 'word'];
}

/** `chunk_by_sentence` with `get_word_size` = 1 (cognee's value when the embedding engine has no tokenizer). */
function* chunkBySentence(data: string, maximumSize: number): Generator<[string, number, string]> {
  let sentence = '';
  let size = 0;
  let state: string | null = null;
  for (const [word, type] of chunkByWord(data)) {
    if (type !== 'word' || LETTER.test(word)) state = type;
    if (size + 1 > maximumSize) {
      yield [sentence, size, state === 'word' ? 'sentence_cut' : (state ?? 'default')];
      sentence = word;
      size = 1;
    } else if (type !== 'word') {
      yield [sentence + word, size + 1, state ?? 'default'];
      sentence = '';
      size = 0;
    } else {
      sentence += word;
      size += 1;
    }
  }
  if (sentence.length > 0) yield [sentence, size, state === 'word' ? 'sentence_cut' : (state ?? 'default')];
}

/** `chunk_by_paragraph(batch_paragraphs=True)`: sentences packed until the next would exceed the maximum. */
function* chunkByParagraph(data: string, maximumSize: number): Generator<{ text: string; size: number; cut: string }> {
  let text = '';
  let size = 0;
  let lastCut = 'default';
  for (const [sentence, sentenceSize, end] of chunkBySentence(data, maximumSize)) {
    if (size > 0 && size + sentenceSize > maximumSize) {
      yield { text, size, cut: lastCut };
      text = '';
      size = 0;
    }
    text += sentence;
    size += sentenceSize;
    lastCut = end;
  }
  if (text) yield { text, size, cut: lastCut === 'word' ? 'sentence_cut' : lastCut };
}

/**
 * `TextChunker.read()` for one text document. Paragraph chunks are packed while they fit `maxChunkSize` and joined
 * with a space. Token counts are word pieces, an approximation of the embedding tokenizer cognee uses; the
 * default limit (`get_max_chunk_tokens()` = min(embedding max tokens 8191, LLM max tokens 16384 // 2)) is far
 * above any scenario text, so each document is one chunk equal to its text. A blank document yields no chunk
 * (`TextDocument.read` stops on a whitespace-only read).
 *
 * @example chunkDocument(documentId, 'A. B.', 8191); // [{ text: 'A. B.', chunk_index: 0, ... }]
 */
export function chunkDocument(documentId: string, text: string, maxChunkSize: number): TextChunk[] {
  if (text.trim() === '') return [];
  const chunks: TextChunk[] = [];
  let pending: { text: string; size: number; cut: string }[] = [];
  let pendingSize = 0;
  const emit = (id: string, chunkText: string, size: number, cut: string) =>
    chunks.push({ id, text: chunkText, chunk_size: size, chunk_index: chunks.length, cut_type: cut });
  const packed = () => pending.map((piece) => piece.text).join(' ');
  for (const piece of chunkByParagraph(text, maxChunkSize)) {
    if (pendingSize + piece.size <= maxChunkSize) {
      pending.push(piece);
      pendingSize += piece.size;
      continue;
    }
    if (pending.length === 0) {
      emit(uuid5(piece.text), piece.text, piece.size, piece.cut);
      pendingSize = 0;
    } else {
      emit(uuid5(`${documentId}-${chunks.length}`), packed(), pendingSize, pending.at(-1)?.cut ?? 'default');
      pending = [piece];
      pendingSize = piece.size;
    }
  }
  if (pending.length > 0)
    emit(uuid5(`${documentId}-${chunks.length}`), packed(), pendingSize, pending.at(-1)?.cut ?? 'default');
  return chunks;
}
