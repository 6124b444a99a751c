"""The three stores joined by chunk IDs: docstore (content), lexical (Tantivy), vectors (LanceDB)."""
