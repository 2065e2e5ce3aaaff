import { describe, expect, it } from 'vitest';
import { pythonUuid5 as uuid5 } from '#python-compat/index.js';
import { chunkDocument } from './cognee-chunker.js';

// Expected values were produced by running cognee @ a8f9760b's chunk_by_paragraph / chunk_by_sentence /
// chunk_by_word and TextChunker's packing loop in Python with get_word_size() = 1.
describe('cognee chunker', () => {
  it('keeps a short document as one chunk equal to its text', () => {
    const text = 'Standard X, issued in 2024, governs Y. It states: A rule. B rule.';
    expect(chunkDocument('doc', text, 8191)).toEqual([
      { id: '42f596e7-781c-5a5c-a7a2-0dd22ac92b5c', text, chunk_size: 13, chunk_index: 0, cut_type: 'sentence_end' },
    ]);
  });

  it('packs sentences up to the limit and cuts overlong sentences, as cognee does', () => {
    const text = 'One two three. Four five six seven. Eight nine.\nTen eleven twelve thirteen fourteen. Fifteen';
    expect(chunkDocument('doc', text, 6)).toEqual([
      {
        id: '42f596e7-781c-5a5c-a7a2-0dd22ac92b5c',
        text: 'One two three. ',
        chunk_size: 3,
        chunk_index: 0,
        cut_type: 'sentence_end',
      },
      {
        id: '5494333e-b030-5791-9f09-9f7cbbbaf875',
        text: 'Four five six seven. Eight nine.',
        chunk_size: 6,
        chunk_index: 1,
        cut_type: 'paragraph_end',
      },
      {
        id: '0c43386f-4bdf-569e-87fb-9de136f195c6',
        text: '\nTen eleven twelve thirteen fourteen. Fifteen',
        chunk_size: 6,
        chunk_index: 2,
        cut_type: 'sentence_cut',
      },
    ]);
    expect(
      chunkDocument('d2', 'word word word word word word word word', 3).map((chunk) => [chunk.text, chunk.cut_type]),
    ).toEqual([
      ['word word word ', 'sentence_cut'],
      ['word word word ', 'sentence_cut'],
      ['word word', 'sentence_cut'],
    ]);
    expect(
      chunkDocument('d3', 'Hello there!  New para\nnext line; semi. end', 4).map((chunk) => [
        chunk.id,
        chunk.text,
        chunk.cut_type,
      ]),
    ).toEqual([
      ['06334238-4e7a-5118-93c9-f907def1c7fe', 'Hello there!  ', 'sentence_end'],
      ['110783e4-4679-58c3-8326-d1f7a479dcf8', 'New para\nnext line; semi. ', 'sentence_end'],
      ['800de46b-ee57-53ff-9bb0-fc4b003d0017', 'end', 'sentence_cut'],
    ]);
  });

  it('yields nothing for a blank document and computes Python uuid5 ids', () => {
    expect(chunkDocument('doc', '  \n ', 8191)).toEqual([]);
    expect(uuid5('abc-0')).toBe('662d30c6-c44d-578c-b93e-ce43440afefd');
  });
});
