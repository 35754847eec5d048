"""Fresh-seed confirmations (issue 36 item 3): the claims whose pinned evidence is thinnest, registered before any
run and judged on seed numbers no stored run of these configs has used."""
