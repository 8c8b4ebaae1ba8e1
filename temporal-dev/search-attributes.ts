// The dev server registers the gateway's search attributes at start; they are defined beside the workflows.
export { SEARCH_ATTRIBUTE_FLAGS, SEARCH_ATTRIBUTES } from '../workflows/search-attributes';
