# Writes ddbst(1) from the command's own help tables: `cmake -DCLI=ddbst
# -DOUT=ddbst.1 -P man.cmake`, so the manual lists every verb there is.
execute_process(COMMAND ${CLI} help --man OUTPUT_FILE ${OUT}.tmp
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${CLI} help --man failed: ${rc}")
endif()
file(RENAME ${OUT}.tmp ${OUT})
